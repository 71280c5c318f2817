/** A stored run read back as the API's RunReport. */
import { buildReport } from '../../store/runs'
import type { ReportTaskInput, TaskContext } from '../protocol'
import { JsonText } from '../../services/json-text'

/** The report as JSON bytes: serialized here, on the worker, and sent to the client as they are. */
export async function reportTask(input: ReportTaskInput, ctx: TaskContext): Promise<Uint8Array> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    return JsonText.bytesOf(buildReport(db, input.run, statics))
  } finally {
    db.close()
  }
}
