/**
 * Real instruction samples for Rutar's method: `perf record` on a hardware cache-miss event
 * (every N misses) of the session's program, `perf script` IPs mapped to source lines through
 * the program's debug information (perf's srcline). Where the machine has no such counter
 * (virtual machines and containers usually hide them) `detectHardwareMisses` says why.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StrideError } from '../../../shared/errors'

export const PERF_EVENT = 'cache-misses:u'

export interface PerfSupport {
  supported: boolean
  reason: string | null
}

/** Pure: what `perf stat -x, -e cache-misses:u -- true` printed (stderr) says about support. */
export function parsePerfStat(stderr: string, paranoid: string | null): PerfSupport {
  if (/<not supported>/.test(stderr)) return { supported: false, reason: 'the CPU exposes no cache-miss counter to perf ("perf stat -e cache-misses" reports <not supported>; virtual machines and containers usually hide hardware counters)' }
  if (/<not counted>/.test(stderr)) return { supported: false, reason: 'perf could not count cache misses ("perf stat -e cache-misses" reports <not counted>; the counter is busy or unavailable)' }
  if (/permission|paranoid|not permitted/i.test(stderr))
    return { supported: false, reason: `perf may not read hardware counters here (kernel.perf_event_paranoid = ${paranoid ?? '?'}; lower it to 2 or less, or run with CAP_PERFMON)` }
  const line = stderr.split('\n').find((l) => l.includes('cache-misses'))
  if (line && /^\s*\d+/.test(line)) return { supported: true, reason: null }
  return { supported: false, reason: `perf did not report the cache-miss event (${stderr.trim().split('\n')[0] ?? 'no output'})` }
}

let cached: PerfSupport | null = null

export function detectHardwareMisses(): PerfSupport {
  if (cached) return cached
  let paranoid: string | null = null
  try {
    paranoid = spawnSync('cat', ['/proc/sys/kernel/perf_event_paranoid'], { encoding: 'utf8' }).stdout.trim() || null
  } catch {
    paranoid = null
  }
  const r = spawnSync('perf', ['stat', '-x,', '-e', PERF_EVENT, '--', 'true'], { encoding: 'utf8', timeout: 20_000 })
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT'
    return (cached = { supported: false, reason: missing ? 'perf is not installed (Debian: apt-get install linux-perf)' : `perf could not run (${r.error.message})` })
  }
  return (cached = parsePerfStat(r.stderr ?? '', paranoid))
}

/** Pure: `perf script -F srcline` output -> samples per file:line. */
export function parseSrclines(text: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>()
  for (const raw of text.split('\n')) {
    const m = /^\s*(\/?[^\s:][^:]*):(\d+)\s*$/.exec(raw)
    if (!m || m[1] === '??' || m[2] === '0') continue
    const lines = out.get(m[1]!) ?? new Map<number, number>()
    const n = Number(m[2])
    lines.set(n, (lines.get(n) ?? 0) + 1)
    out.set(m[1]!, lines)
  }
  return out
}

/** Records the program with perf and returns its cache-miss samples per file:line. */
export function recordLineSamples(program: string, args: string[], every: number): Map<string, Map<number, number>> {
  const support = detectHardwareMisses()
  if (!support.supported) throw new StrideError(`Hardware cache-miss sampling is not supported on this machine: ${support.reason}; use simulated samples instead.`, 'tool-missing')
  const dir = mkdtempSync(join(tmpdir(), 'stride-perf-'))
  try {
    const data = join(dir, 'perf.data')
    const rec = spawnSync('perf', ['record', '-q', '-e', PERF_EVENT, '-c', String(every), '-o', data, '--', program, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
    if (rec.error || rec.status !== 0) throw new StrideError(`perf record failed: ${(rec.stderr || rec.error?.message || '').trim().split('\n')[0]}.`, 'internal')
    const script = spawnSync('perf', ['script', '-i', data, '-F', 'srcline', '--full-source-path'], { encoding: 'utf8', maxBuffer: 1 << 30 })
    if (script.error || script.status !== 0) throw new StrideError(`perf script failed: ${(script.stderr || script.error?.message || '').trim().split('\n')[0]}.`, 'internal')
    return parseSrclines(script.stdout)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
