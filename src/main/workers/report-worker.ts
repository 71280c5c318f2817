/**
 * Worker thread: reads one stored run back as the API's RunReport (queries and roll-ups), or
 * the advisor's diagnosis of it (the report plus a replay of the trace for the miss classes).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import { adviseStoredRun } from '../session-analysis/session-advice'
import { buildReport } from '../store/runs'
import { openSessionDb } from '../store/session-reader'
import type { ReportWorkerInput, WorkerMessage } from './protocol'

const input = workerData as ReportWorkerInput
const post = (m: WorkerMessage) => parentPort!.postMessage(m)

async function main(): Promise<void> {
  const db = openSessionDb(input.session, { readonly: true })
  try {
    if (input.advice) post({ type: 'advice-done', advice: await adviseStoredRun(db, input.run, input.advice.level) })
    else post({ type: 'report-done', report: buildReport(db, input.run) })
  } finally {
    db.close()
  }
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: null })
})
