/**
 * The error the user can act on, thrown everywhere (backends, workers, CLI) and carried over
 * the API as { message, code }. Its own module, with no dependencies: workers throw it
 * without loading the API's schemas (zod costs about 60 ms to load per thread).
 */

/** An error the user can act on: `message` names the problem and the fix. */
export class StrideError extends Error {
  constructor(
    message: string,
    readonly code: StrideErrorCode = 'invalid-input'
  ) {
    super(message)
    this.name = 'StrideError'
  }
}
export type StrideErrorCode =
  | 'invalid-input'
  | 'not-found'
  | 'permission-denied'
  | 'no-debug-info'
  | 'malformed-session'
  | 'tool-missing'
  | 'target-failed'
  | 'cancelled'
  | 'internal'

