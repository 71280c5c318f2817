/** A stored run read back as the API's RunReport. */
import { buildReport } from '../../store/runs'
import type { ReportTaskInput, TaskContext } from '../protocol'

/** The report as JSON text: serialized here, on the worker, and sent to the client as it is. */
export async function reportTask(input: ReportTaskInput, ctx: TaskContext): Promise<string> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    return JSON.stringify(buildReport(db, input.run, statics))
  } finally {
    db.close()
  }
}
