/**
 * Mohan's stream statistics per function, on request: one pass of the detectors over the
 * stored trace (a trace no longer runs them beside the recording), kept in the session so the
 * next request, or the next open, reads them. Already kept: read as they are. A session that
 * cannot be written still gets them, computed again at each request.
 */
import type { FunctionStreams } from '../../../shared/domain'
import { readPoints, toFunctionStreams } from '../../store/session-reader'
import { functionStreamsOf, keepFunctionStreamsAt } from '../../store/stream-store'
import type { FunctionStreamsTaskInput, TaskContext } from '../protocol'

export async function functionStreamsTask(input: FunctionStreamsTaskInput, ctx: TaskContext): Promise<FunctionStreams[]> {
  const { db } = ctx.sessions.open(input.session)
  try {
    const { functions } = await functionStreamsOf(db, readPoints(db).map((p) => p.function), (rows) => {
      try {
        keepFunctionStreamsAt(input.session, rows, 'the app (address streams per function)')
      } catch {
        // Not kept (a read-only file, a trace writing it): computed again on the next request.
      }
    })
    return functions.map(toFunctionStreams)
  } finally {
    db.close()
  }
}
