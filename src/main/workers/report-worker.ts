/** Worker thread: reads one stored run back as the API's RunReport (queries and roll-ups). */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/api'
import { buildReport } from '../store/runs'
import { openSessionDb } from '../store/session-reader'
import type { ReportWorkerInput, WorkerMessage } from './protocol'

const input = workerData as ReportWorkerInput
const post = (m: WorkerMessage) => parentPort!.postMessage(m)

try {
  const db = openSessionDb(input.session, { readonly: true })
  try {
    post({ type: 'report-done', report: buildReport(db, input.run) })
  } finally {
    db.close()
  }
} catch (e) {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: null })
}
