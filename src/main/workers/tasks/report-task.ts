/** A stored run read back as the API's RunReport, or its figures only (shared/report-figures.ts). */
import { buildReport } from '../../store/runs'
import { figuresOf } from '../../../shared/report-figures'
import type { ReportPartTaskInput, TaskContext } from '../protocol'
import { JsonText } from '../../services/json-text'

/** The answer as JSON bytes: serialized here, on the worker, and sent to the client as they are. */
export async function reportTask(input: ReportPartTaskInput, ctx: TaskContext): Promise<Uint8Array> {
  const { db, statics } = ctx.sessions.open(input.session)
  try {
    const report = buildReport(db, input.run, statics)
    return JsonText.bytesOf(input.part === 'figures' ? figuresOf(report) : report)
  } finally {
    db.close()
  }
}
