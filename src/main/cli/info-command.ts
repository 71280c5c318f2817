/** `stride info SESSION [--json]`. */
import { StrideError } from '../../shared/errors'
import { openSessionDb, readPoints, readSessionInfo } from '../store/session-reader'
import { keepFunctionStreamsAt, sessionStreams, type FunctionStreams } from '../store/stream-store'
import { chunkChecks } from '../store/integrity'
import { has, parseArgs } from './args'
import type { Io } from './io'
import { runLines, shortRunsLine, shownFunctions } from './info-output'
import { SHOWN_SHARE } from './shown-share'

export async function infoCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { json: {}, streams: {} }, 'info')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride info: give one session file, e.g. stride info s.stride.')
  const db = openSessionDb(session, { readonly: true })
  try {
    const info = readSessionInfo(db, session)
    const points = readPoints(db)
    // The functions' stream statistics are computed on request (--streams), then kept.
    let notKept: string | null = null
    const keep = (rows: FunctionStreams[]) => {
      try {
        keepFunctionStreamsAt(session, rows, 'stride info --streams')
      } catch (e) {
        notKept = e instanceof Error ? e.message : String(e)
      }
    }
    const streams = await sessionStreams(db, points.map((p) => p.function), { computeFunctions: has(args, 'streams'), keep })
    if (notKept) io.err(`stride info: the address streams per function were computed but not kept: ${notKept}`)
    if (has(args, 'json')) {
      io.out(
        JSON.stringify(
          {
            program: info.program,
            args: info.args,
            functions: info.functions,
            events: info.events,
            partial: info.partial,
            stopReason: info.stopReason,
            stopMessage: info.stopMessage,
            storedBytes: info.storedBytes,
            hasDebugInfo: info.hasDebugInfo,
            programExit: info.programExit ?? null,
            recorder: info.recorder ?? null,
            recorderNote: info.recorderNote ?? null,
            threads: info.threads ?? null,
            runs: info.runs,
            functionStreamsPending: streams.functionsPending,
            points: points.map((p) => {
              const m = streams.points.get(p.index)
              return {
                id: p.id, pc: p.pc, kind: p.kind, file: p.file, line: p.line, function: p.function, variable: p.variable, accesses: p.accesses,
                // METRIC section 9, from the compressor's RSDs.
                regularity: m?.regularity ?? 0,
                meanStreamLength: m?.meanStreamLength ?? 0,
                strides: m?.strides ?? [],
                streams: m?.streams ?? 0,
                distinctStrides: m?.distinctStrides ?? 0,
                distinctLengths: m?.distinctLengths ?? 0,
                lengths: m?.lengths ?? []
              }
            }),
            // Mohan et al.: per function, stream statistics and Table 1's advice with its evidence.
            functionStreams: streams.functions.map((f) => ({
              function: f.function,
              references: f.references,
              spatialRegularity: f.spatialRegularity,
              streams: f.streams,
              scalarStreams: f.scalarStreams,
              lengthBuckets: f.buckets,
              meanLength: f.meanLength,
              lengthDeviation: f.lengthDeviation,
              meanStride: f.meanStride,
              meanStrideElements: f.meanStrideElements,
              longStreams: f.longStreams,
              window: f.window,
              advice: f.advice
            }))
          },
          null,
          2
        )
      )
      return 0
    }
    io.out(`${info.path}`)
    io.out(`  program   ${info.program} ${info.args.join(' ')}`)
    io.out(`  functions ${info.functions.length ? info.functions.join(', ') : '(all)'}`)
    io.out(`  events    ${info.events}${info.partial ? ` (partial: ${info.stopReason}${info.stopMessage ? ` — ${info.stopMessage}` : ''})` : ''}`)
    if (info.programExit) io.out(`  exit      ${info.programExit.signal ? `killed by ${info.programExit.signal}` : `status ${info.programExit.code ?? 'unknown'}`}`)
    if (info.recorder) io.out(`  recorder  ${info.recorder}${info.threads && info.threads > 1 ? `, ${info.threads} threads (accesses interleaved as they ran)` : ''}`)
    io.out(`  stored    ${info.storedBytes} bytes (${info.storedBytes > 0 ? ((info.events * 24) / info.storedBytes).toFixed(1) : '-'}x vs 24-byte records)`)
    io.out(`  points    ${points.length}`)
    // Sessions from before v12: what vouches for their chunks is weaker, and said.
    const checks = chunkChecks(db, session)
    if (checks !== 'bound')
      io.out(`  checks    ${checks === 'crc32' ? 'a plain CRC-32 per chunk (an older session: a chunk moved with its checksum is caught only by its sequence and count)' : 'none on its chunks (a session from before v9); re-trace for checked chunks'}`)
    runLines(info.runs).forEach((line, i) => io.out(`  ${i === 0 ? 'runs      ' : '          '}${line}`))
    const short = shortRunsLine(info.runs, info.events)
    if (short) io.out(`            ${short}`)
    if (info.debugInfoHint) io.out(`  note      ${info.debugInfoHint}`)
    if (streams.functionsPending)
      io.out(`  streams   per function: computed on request, one pass over the ${info.events} accesses (stride info --streams ${session})`)
    const accesses = new Map<string, number>()
    for (const p of points) if (p.function !== null) accesses.set(p.function, (accesses.get(p.function) ?? 0) + p.accesses)
    const { shown, hidden } = shownFunctions(streams.functions, accesses)
    for (const f of shown) {
      io.out(`  streams   ${f.function}: regularity ${f.spatialRegularity.toFixed(2)}, ${f.streams} streams (mean length ${f.meanLength.toFixed(1)}, mean stride ${f.meanStride.toFixed(0)} B)`)
      for (const a of f.advice) io.out(`    advice  ${a.optimization} — ${a.evidence}`)
    }
    if (hidden > 0) io.out(`  streams   ... and ${hidden} more functions, each under ${SHOWN_SHARE * 100}% of the accesses (--json lists them)`)
  } finally {
    db.close()
  }
  return 0
}
