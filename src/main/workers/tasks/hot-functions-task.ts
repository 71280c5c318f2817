/** "What is hot": a run's functions ranked by first-level misses (self costs; shared/hot-functions.ts). */
import { rankHotFunctions, type HotFunctions } from '../../../shared/hot-functions'
import { buildReport } from '../../store/runs'
import type { ReportTaskInput, TaskContext } from '../protocol'

export async function hotFunctionsTask(input: ReportTaskInput, ctx: TaskContext): Promise<HotFunctions> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    return rankHotFunctions(buildReport(db, input.run, statics))
  } finally {
    db.close()
  }
}
