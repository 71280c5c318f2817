/** A stored run read back as the API's RunReport, or the advisor's diagnosis of it. */
import type { RunAdvice } from '../../../shared/domain'
import { adviseStoredRun } from '../../session-analysis/session-advice'
import { buildReport } from '../../store/runs'
import type { AdviceTaskInput, ReportTaskInput, TaskContext } from '../protocol'

/** The report as JSON text: serialized here, on the worker, and sent to the client as it is. */
export async function reportTask(input: ReportTaskInput, ctx: TaskContext): Promise<string> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    return JSON.stringify(buildReport(db, input.run, statics))
  } finally {
    db.close()
  }
}

/** The report plus a replay of the trace for the miss classes: seconds on a large session. */
export async function adviceTask(input: AdviceTaskInput, ctx: TaskContext): Promise<RunAdvice> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    return await adviseStoredRun(db, input.run, input.level, statics)
  } finally {
    db.close()
  }
}
