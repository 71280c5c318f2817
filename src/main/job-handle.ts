/**
 * A long job running off the main thread (a worker thread or Frida's owner process): its
 * result, how to stop it, and how it fails. Shared by workers/ and tracing/, owned by neither.
 */
import { StrideError } from '../shared/errors'

/** A failed job; `session` still holds what was recorded before the failure, if anything. */
export class JobError extends StrideError {
  constructor(message: string, code: StrideError['code'], readonly session: string | null) {
    super(message, code)
  }
}

export interface WorkerHandle<T> {
  result: Promise<T>
  stop(): void
}
