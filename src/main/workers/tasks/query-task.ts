/** One slice query (SIGMA section 3.3) over a stored run; array sections re-simulate the trace. */
import type { QuerySlice } from '../../../shared/domain'
import { runSliceQuery } from '../../session-analysis/run-slice-query'
import { openSessionDb } from '../../store/session-reader'
import type { QueryTaskInput, TaskContext } from '../protocol'

export async function queryTask(input: QueryTaskInput, ctx: TaskContext): Promise<QuerySlice> {
  const db = openSessionDb(input.session, { readonly: true })
  try {
    return await runSliceQuery(db, input, {
      onProgress: (events, total) => ctx.progress('simulating', events, total),
      shouldStop: ctx.shouldStop
    })
  } finally {
    db.close()
  }
}
