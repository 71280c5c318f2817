/**
 * Small native helpers in resources/native, built with cc on first use (like the examples):
 * - stride-pipebuf (pipebuf.c): relays lackey's pipe in large blocks; without it Stride still
 *   traces, reading Valgrind's output directly, only several times slower.
 * - stride-allocs.so (allocs.c): LD_PRELOAD interposer reporting malloc/calloc/realloc/free
 *   in order with the trace; without it heap blocks are attributed to `unknown`.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { projectRoot } from '../../paths'

const built = new Map<string, string | null>()

function build(source: string, output: string, flags: string[]): string | null {
  const key = output
  if (built.has(key)) return built.get(key)!
  const dir = join(projectRoot(), 'resources', 'native')
  const src = join(dir, source)
  const bin = join(dir, 'build', output)
  let result: string | null = null
  if (existsSync(bin) && statSync(bin).mtimeMs >= statSync(src).mtimeMs) result = bin
  else {
    mkdirSync(join(dir, 'build'), { recursive: true })
    const r = spawnSync(process.env.CC || 'cc', [...flags, '-o', bin, src], { encoding: 'utf8' })
    result = r.status === 0 ? bin : null
  }
  built.set(key, result)
  return result
}

/** Path of the built relay, or null when it cannot be built here. */
export function pipebufPath(): string | null {
  if (process.env.STRIDE_NO_PIPEBUF === '1') return null // bench/trace.mjs measures both ways
  return build('pipebuf.c', 'stride-pipebuf', ['-O2'])
}

/** Path of the allocation interposer, or null (no compiler, or no valgrind/valgrind.h). */
export function allocInterposerPath(): string | null {
  return build('allocs.c', 'stride-allocs.so', ['-O2', '-shared', '-fPIC', '-ldl'])
}

/** The relay's first line on the trace channel names the traced process. */
export function parsePipebufHeader(line: string): number | null {
  const m = /^==stride-pipebuf== pid (\d+)$/.exec(line)
  return m ? Number(m[1]) : null
}
