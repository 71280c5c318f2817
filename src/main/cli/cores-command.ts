/**
 * `stride simulate SESSION --cores N [--place T:C,...] --cache ...[:shared]` (issue 50): the
 * trace on N cores with private levels and MESI-style invalidation, coherence misses split into
 * true and false sharing, and the lines several threads share found independently of the
 * schedule. Printed (or `--json`); not stored as a run (the session's runs are one hierarchy).
 */
import type { LayoutFilter } from '../../shared/domain'
import { groupDigits } from '../../shared/counts'
import { openSessionDb } from '../store/session-reader'
import { SHARING_NOTE, sharingByVariable, simulateCores, type CoresRequest, type SessionCores, type SessionSharing } from '../session-analysis/session-sharing'
import { parseLevels, usage } from './hierarchy-flags'
import type { Io } from './io'

export interface CoresFlags {
  cores: string
  place: string | null
  interleave: string | null
  caches: string[]
  layout: LayoutFilter[]
  json: boolean
}

/** The flags checked into a request: one line naming the problem and the fix otherwise. */
export function parseCoresRequest(flags: CoresFlags): CoresRequest {
  if (!/^\d{1,4}$/.test(flags.cores) || Number(flags.cores) < 1 || Number(flags.cores) > 1024) usage(`--cores "${flags.cores}" must be a number of cores from 1 to 1024, e.g. --cores 4.`)
  const cores = Number(flags.cores)
  if (flags.caches.length === 0) usage('--cores needs the levels of one core: --cache L1:32K:8:64 --cache LL:8M:16:64:lru:shared (levels are private per core unless "shared").')
  const levels = parseLevels(flags.caches, 'simulate', { cores: true })
  for (const l of levels) {
    if (l.prefetch && l.prefetch !== 'none') usage(`--cache ${l.name}: prefetchers are not simulated with --cores; leave pf= out.`)
    if (l.inclusive) usage(`--cache ${l.name}: inclusion is not simulated with --cores; leave incl out.`)
    if (l.lineSize !== levels[0]!.lineSize) usage(`--cores simulates levels of one line size (the lines the cores exchange); ${l.name} has ${l.lineSize} B, ${levels[0]!.name} ${levels[0]!.lineSize} B.`)
    const sets = l.size / (l.assoc * l.lineSize)
    if (!Number.isInteger(sets) || (sets & (sets - 1)) !== 0) usage(`--cache ${l.name}: size / (associativity x line size) must be a power of two.`)
  }
  if (levels.every((l) => l.shared)) usage('--cores: every level is shared, so no core has a cache of its own; make the first level private (leave "shared" off it).')
  const place = new Map<number, number>()
  for (const item of (flags.place ?? '').split(',').filter((s) => s !== '')) {
    const m = /^(\d{1,9}):(\d{1,4})$/.exec(item)
    if (!m) usage(`--place "${item}" must look like THREAD:CORE, e.g. --place 1:0,2:1 (threads as stride info numbers them, cores from 0).`)
    if (Number(m[2]) >= cores) usage(`--place ${item}: core ${m[2]} does not exist with --cores ${cores} (cores are 0 to ${cores - 1}).`)
    place.set(Number(m[1]), Number(m[2]))
  }
  let interleave: number | null = null
  if (flags.interleave !== null) {
    if (!/^\d{1,9}$/.test(flags.interleave) || Number(flags.interleave) < 1) usage(`--interleave "${flags.interleave}" must be a positive number of accesses per turn, e.g. --interleave 1 (the finest).`)
    interleave = Number(flags.interleave)
  }
  return { levels, cores, place, layout: flags.layout, interleave }
}

export async function coresCommand(path: string, request: CoresRequest, json: boolean, io: Io): Promise<number> {
  const db = openSessionDb(path, { readonly: true })
  let run: Awaited<ReturnType<typeof simulateCores>>
  try {
    run = await simulateCores(db, request)
  } finally {
    db.close()
  }
  const out = coresJson(run, run.sharing, request)
  if (json) {
    io.out(JSON.stringify(out, null, 2))
    return 0
  }
  printCores(out, io)
  return 0
}

export function coresJson(run: SessionCores, sharing: SessionSharing, request: CoresRequest) {
  const { result: r, points, namer } = run
  const levels = r.levels.map((l) => ({ name: l.name, shared: l.shared, reads: l.reads, writes: l.writes, readMisses: l.readMisses, writeMisses: l.writeMisses, perCore: l.perCore.map((c, core) => ({ core, ...c })) }))
  const references = points
    .filter((p) => r.points.reads[p.index]! + r.points.writes[p.index]! > 0)
    .map((p) => {
      const i = p.index
      const threads = [...r.threads]
        .filter(([, t]) => t.accesses[i]! > 0)
        .map(([thread, t]) => ({ thread, accesses: t.accesses[i]!, misses: t.misses[i]! }))
        .sort((a, b) => a.thread - b.thread)
      return {
        id: p.id,
        pc: p.pc,
        file: p.file,
        line: p.line,
        variable: p.variable,
        reads: r.points.reads[i]!,
        writes: r.points.writes[i]!,
        levels: Object.fromEntries(r.levels.map((l, k) => [l.name, { misses: r.points.misses[k]![i]! }])),
        coherence: { trueSharing: r.points.trueSharing[i]!, falseSharing: r.points.falseSharing[i]!, invalidations: r.points.invalidations[i]! },
        threads
      }
    })
    .sort((a, b) => b.coherence.trueSharing + b.coherence.falseSharing - (a.coherence.trueSharing + a.coherence.falseSharing) || b.reads + b.writes - (a.reads + a.writes))
  // A line's address is the simulated one (moved by a layout what-if); its data structure, the trace's.
  const lines = [...r.lines]
    .map(([line, l]) => ({ address: '0x' + (line * run.lineSize).toString(16), variable: namer.variableAt(l.address)?.name ?? null, trueSharing: l.trueSharing, falseSharing: l.falseSharing, invalidations: l.invalidations }))
    .sort((a, b) => b.trueSharing + b.falseSharing - (a.trueSharing + a.falseSharing) || b.invalidations - a.invalidations)
  const variables = new Map<string, { variable: string; trueSharing: number; falseSharing: number; invalidations: number }>()
  for (const l of r.lines.values()) {
    const name = namer.variableAt(l.address)?.name ?? 'unknown'
    const v = variables.get(name) ?? { variable: name, trueSharing: 0, falseSharing: 0, invalidations: 0 }
    v.trueSharing += l.trueSharing
    v.falseSharing += l.falseSharing
    v.invalidations += l.invalidations
    variables.set(name, v)
  }
  return {
    cores: r.cores,
    placement: run.placement,
    schedule: request.interleave === null ? 'recorded' : `interleave ${request.interleave}`,
    stored: false,
    ...(request.layout.length > 0 ? { layout: request.layout } : {}),
    levels,
    coherence: r.coherence,
    invalidations: [...r.invalidationEdges].map(([key, count]) => ({ fromCore: Math.floor(key / r.cores), toCore: key % r.cores, count })),
    variables: [...variables.values()].sort((a, b) => b.trueSharing + b.falseSharing - (a.trueSharing + a.falseSharing)),
    lines,
    references,
    sharing: { lineSize: sharing.lineSize, threads: sharing.threads, note: SHARING_NOTE, variables: sharingByVariable(sharing), lines: sharing.lines }
  }
}

function printCores(out: ReturnType<typeof coresJson>, io: Io): void {
  const n = (x: number) => groupDigits(x)
  io.out(`${out.cores} cores; threads on cores: ${out.placement.map((p) => `${p.thread}→${p.core}`).join(', ')}; schedule: ${out.schedule === 'recorded' ? 'as recorded' : `round-robin, ${out.schedule.slice(11)} access(es) per turn`} (not stored: --cores runs are printed only)`)
  for (const l of out.levels) {
    const perCore = l.shared ? '' : `  per core: ${l.perCore.map((c) => n(c.readMisses + c.writeMisses)).join(' / ')}`
    io.out(`${l.name}${l.shared ? ' (shared)' : ''}: ${n(l.reads + l.writes)} accesses, ${n(l.readMisses + l.writeMisses)} misses${perCore}`)
  }
  const c = out.coherence
  io.out(`coherence misses: ${n(c.trueSharing + c.falseSharing)} (true sharing ${n(c.trueSharing)}, false sharing ${n(c.falseSharing)}); invalidations ${n(c.invalidations)}`)
  for (const v of out.variables.slice(0, 10)) io.out(`  ${v.variable}: true ${n(v.trueSharing)}, false ${n(v.falseSharing)}, invalidations ${n(v.invalidations)}`)
  const top = out.references.filter((r) => r.coherence.trueSharing + r.coherence.falseSharing > 0).slice(0, 10)
  if (top.length > 0) io.out('references with coherence misses:')
  for (const r of top)
    io.out(`  ${r.id} (${r.file ?? '?'}:${r.line ?? '?'}): true ${n(r.coherence.trueSharing)}, false ${n(r.coherence.falseSharing)}; by thread ${r.threads.map((t) => `${t.thread}: ${n(t.misses)}/${n(t.accesses)}`).join(', ')}`)
  const s = out.sharing
  io.out(`lines shared by threads (${s.lines.length}, whatever the schedule):`)
  for (const l of s.lines.slice(0, 10)) {
    const fields = l.threads.map((t) => `${t.thread}: ${t.footprints.map((f) => f.field ?? `+${f.offset}`).join(' ')}`).join('; ')
    io.out(
      `  ${l.address} ${l.variables.join(', ') || 'unknown'} — ${l.verdict}; threads ${fields}; interleavings ${n(l.interleavings)}; coherence misses recorded ${n(l.recorded.trueSharing + l.recorded.falseSharing)}, fine-interleaving estimate ${n(l.fineEstimate.trueSharing + l.fineEstimate.falseSharing)} (false ${n(l.fineEstimate.falseSharing)})`
    )
  }
  io.out(`(${s.note})`)
}
