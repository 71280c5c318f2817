/** `stride info SESSION [--json]`. */
import { StrideError } from '../../shared/api'
import { openSessionDb, readPoints, readSessionInfo } from '../store/session-reader'
import { has, parseArgs } from './args'
import type { Io } from './io'

export async function infoCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { json: {} }, 'info')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride info: give one session file, e.g. stride info s.stride.')
  const db = openSessionDb(session, { readonly: true })
  try {
    const info = readSessionInfo(db, session)
    const points = readPoints(db)
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
            runs: info.runs,
            points: points.map((p) => ({ id: p.id, pc: p.pc, kind: p.kind, file: p.file, line: p.line, function: p.function, variable: p.variable, accesses: p.accesses }))
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
    io.out(`  stored    ${info.storedBytes} bytes (${info.storedBytes > 0 ? ((info.events * 24) / info.storedBytes).toFixed(1) : '-'}x vs 24-byte records)`)
    io.out(`  points    ${points.length}`)
    io.out(`  runs      ${info.runs.map((r) => `${r.run}: ${r.config.levels.map((l) => `${l.name}:${l.size}:${l.assoc}:${l.lineSize}`).join(' ')}`).join('; ') || '(none)'}`)
    if (info.debugInfoHint) io.out(`  note      ${info.debugInfoHint}`)
  } finally {
    db.close()
  }
  return 0
}
