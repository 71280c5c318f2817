/** Finished sessions of full stored chunks, for tests of the chunk readers. */
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from '../store/session-writer'

/** Writes `chunks` full chunks at `path`: one point walking an array, access i at 0x10000 + 8i (chunks x MAX_STORED_CHUNK accesses). */
export function writeFullChunks(path: string, chunks: number): string {
  const w = new SessionWriter(path, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
  const table: PointRecord[] = [{ idx: 0, pc: 0x401000, kind: 0, accesses: 0, firstAddress: 0 }]
  for (let c = 0; c < chunks; c++) {
    const n = MAX_STORED_CHUNK
    table[0]!.accesses += n
    w.appendChunk(n, new Uint32Array(n), Float64Array.from({ length: n }, (_, i) => 0x10000 + (c * n + i) * 8), new Uint16Array(n).fill(8), table)
  }
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  return path
}
