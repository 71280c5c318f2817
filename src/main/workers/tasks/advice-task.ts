/** The advisor's diagnosis of a stored run: the report plus a replay of the trace for the miss classes (seconds on a large session). */
import type { RunAdvice } from '../../../shared/domain'
import { adviseStoredRun } from '../../session-analysis/session-advice'
import type { AdviceTaskInput, TaskContext } from '../protocol'

export async function adviceTask(input: AdviceTaskInput, ctx: TaskContext): Promise<RunAdvice> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    return await adviseStoredRun(db, input.run, input.level, statics)
  } finally {
    db.close()
  }
}
