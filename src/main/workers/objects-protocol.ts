/** Messages across the objects worker boundary (structured-cloned; the report is small: one row per data structure and method). */
import type { StrideErrorCode } from '../../shared/errors'
import type { ObjectsOptions, ObjectsReport } from '../../shared/domain'

export interface ObjectsWorkerInput {
  session: string
  options: ObjectsOptions
}

export type ObjectsWorkerMessage =
  | { type: 'progress'; events: number; total: number }
  | { type: 'objects-done'; report: ObjectsReport }
  | { type: 'error'; message: string; code: StrideErrorCode }
