/** Worker thread: runs one trace (Valgrind backend), writes the session, names its points. */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/api'
import { Correlator, dominantVariable, type ProgramDataLayout } from '../correlate/correlator'
import { nameVariables } from '../correlate/name-variables'
import { readElf } from '../symbols/elf-reader'
import { readProgramVariables } from '../symbols/gdb-variables'
import { sourceLocations } from '../symbols/addr2line'
import { innermostLoop, readLoops } from '../symbols/loops'
import { namePoints } from '../symbols/name-points'
import { NO_DEBUG_INFO_HINT } from '../symbols/inspect-program'
import { removeSessionFile, SessionWriter } from '../store/session-writer'
import { ValgrindTrace } from '../tracing/valgrind/valgrind-tracer'
import type { TraceWorkerInput, WorkerCommand, WorkerMessage } from './protocol'

const input = workerData as TraceWorkerInput
const post = (m: WorkerMessage) => parentPort!.postMessage(m)

async function main(): Promise<void> {
  const writer = new SessionWriter(input.out, {
    program: input.program,
    args: input.args,
    backend: 'valgrind',
    functions: input.functions,
    createdAt: new Date().toISOString()
  })
  const correlator = new Correlator(await dataLayout(input.program).catch(() => null))
  const trace = new ValgrindTrace(input, writer, (events) => post({ type: 'progress', phase: 'tracing', events, total: input.maxEvents }), correlator)
  parentPort!.on('message', (m: WorkerCommand) => {
    if (m.type === 'stop') trace.stop('cancelled', 'cancelled by the user')
  })
  let outcome
  try {
    outcome = await trace.run()
  } catch (e) {
    // Keep whatever reached the file, marked partial, and say why.
    const message = e instanceof Error ? e.message : String(e)
    const kept = writer.eventCount > 0
    writer.finish({ partial: true, stopReason: 'error', stopMessage: message, hasDebugInfo: false, debugInfoHint: null })
    if (!kept) removeSessionFile(input.out) // nothing was recorded: leave no empty session behind
    post({ type: 'error', message, code: e instanceof StrideError ? e.code : 'internal', session: kept ? input.out : null })
    return
  }
  post({ type: 'progress', phase: 'symbolizing', events: writer.eventCount, total: null })
  const { variables, histograms } = correlator.finish()
  const named = await nameVariables(variables, outcome.modules)
  const pointVariable = (point: number) => {
    const v = dominantVariable(histograms.get(point))
    return v === 0 ? null : (named[v]?.name ?? null)
  }
  const names = await namePoints(outcome.points, outcome.modules, outcome.elf, pointVariable)
  writer.writePoints(outcome.points, names, outcome.modules)
  writer.writeVariables(
    named.map((v) => ({ id: v.id, name: v.name, kind: v.kind, start: v.start, size: v.size, type: v.type, elementSize: v.elementSize, dims: v.dims, module: v.module, allocSite: v.allocSite, reads: v.reads, writes: v.writes })),
    histograms
  )
  writer.writeMeta({ heapTracked: trace.heapTracked, allocationEvents: correlator.allocEvents })
  await storeLoops(writer, outcome).catch(() => {}) // no objdump or no text: reports simply have no loops
  const partial = outcome.stopReason !== 'completed'
  writer.finish({
    partial,
    stopReason: outcome.stopReason,
    stopMessage: outcome.message,
    hasDebugInfo: outcome.elf.hasDebugInfo,
    debugInfoHint: outcome.elf.hasDebugInfo ? null : NO_DEBUG_INFO_HINT
  })
  post({ type: 'trace-done', session: input.out, events: writer.eventCount, partial, stopReason: outcome.stopReason, message: outcome.message })
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: null })
})

/** What the correlator needs of the program: globals, and locals of functions, from its debug info. */
async function dataLayout(program: string): Promise<ProgramDataLayout> {
  const elf = await readElf(program)
  const functions = elf.functions.filter((f) => f.size > 0)
  const variables = elf.hasDebugInfo
    ? await readProgramVariables(program, elf.data.map((d) => d.name), functions.map((f) => [f.name, f.start]))
    : { globals: {}, frames: {} }
  return { globals: elf.data, functions, variables, relocatable: elf.relocatable }
}

/** Loop nests of the program, at runtime addresses, with header lines; and each point's innermost loop. */
async function storeLoops(writer: SessionWriter, outcome: Awaited<ReturnType<ValgrindTrace['run']>>): Promise<void> {
  const exe = outcome.modules.find((m) => m.path === outcome.elf.path)
  if (!exe) return
  const offset = outcome.elf.relocatable ? exe.base : 0
  const loops = await readLoops(outcome.elf.path)
  if (loops.length === 0) return
  const lines = outcome.elf.hasDebugInfo ? await sourceLocations(outcome.elf.path, loops.map((l) => l.start)) : []
  const pointLoops = new Map<number, number>()
  for (const p of outcome.points) {
    const loop = innermostLoop(loops, p.pc - offset)
    if (loop >= 0) pointLoops.set(p.idx, loop)
  }
  writer.writeLoops(
    loops.map((l, i) => ({ ...l, start: l.start + offset, end: l.end + offset, file: lines[i]?.file ?? null, line: lines[i]?.line ?? null })),
    pointLoops
  )
}
