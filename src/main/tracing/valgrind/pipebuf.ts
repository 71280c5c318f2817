/**
 * The stride-pipebuf relay (resources/native/pipebuf.c), built with cc on first use. Without a
 * compiler Stride still traces, reading Valgrind's output directly, only several times slower.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { projectRoot } from '../../paths'

let built: string | null | undefined

/** Path of the built relay, or null when it cannot be built here. */
export function pipebufPath(): string | null {
  if (process.env.STRIDE_NO_PIPEBUF === '1') return null // bench/trace.mjs measures both ways
  if (built !== undefined) return built
  const dir = join(projectRoot(), 'resources', 'native')
  const source = join(dir, 'pipebuf.c')
  const bin = join(dir, 'build', 'stride-pipebuf')
  if (existsSync(bin) && statSync(bin).mtimeMs >= statSync(source).mtimeMs) return (built = bin)
  mkdirSync(join(dir, 'build'), { recursive: true })
  const r = spawnSync(process.env.CC || 'cc', ['-O2', '-o', bin, source], { encoding: 'utf8' })
  built = r.status === 0 ? bin : null
  return built
}

/** The relay's first line on the trace channel names the traced process. */
export function parsePipebufHeader(line: string): number | null {
  const m = /^==stride-pipebuf== pid (\d+)$/.exec(line)
  return m ? Number(m[1]) : null
}
