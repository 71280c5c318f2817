/**
 * One backend call turned into the envelope both transports send back (wire-session.ts adds
 * the request id). Only StrideError messages are meant
 * for users; anything else is a bug, so its details go to the log, not the UI.
 */
import { API_METHODS, StrideError, type ApiMethod, type StrideErrorCode } from '../../shared/api'
import type { CallContext, StrideBackend } from '../services/backend'

export type CallEnvelope =
  | { ok: true; result: unknown }
  | { ok: false; error: { message: string; code: StrideErrorCode } }

const ERROR_CODES: ReadonlySet<string> = new Set<StrideErrorCode>([
  'invalid-input',
  'not-found',
  'permission-denied',
  'no-debug-info',
  'malformed-session',
  'tool-missing',
  'target-failed',
  'cancelled',
  'internal'
])

export function isApiMethod(method: unknown): method is ApiMethod {
  return typeof method === 'string' && (API_METHODS as readonly string[]).includes(method)
}

/** A StrideError, also when it comes from another copy of the shared module (a worker bundle). */
function asStrideError(err: unknown): { message: string; code: StrideErrorCode } | null {
  if (err instanceof StrideError) return { message: err.message, code: err.code }
  if (err instanceof Error && err.name === 'StrideError') {
    const code = (err as { code?: unknown }).code
    if (typeof code === 'string' && ERROR_CODES.has(code)) {
      return { message: err.message, code: code as StrideErrorCode }
    }
  }
  return null
}

export function toErrorEnvelope(err: unknown, method: string): CallEnvelope {
  const known = asStrideError(err)
  if (known) return { ok: false, error: known }
  console.error(`[stride] ${method} failed with an internal error:`, err)
  return {
    ok: false,
    error: {
      code: 'internal',
      message: `Stride hit an internal error while running ${method}; the details are in the terminal or log.`
    }
  }
}

export function unknownMethodEnvelope(method: unknown): CallEnvelope {
  const shown = typeof method === 'string' ? JSON.stringify(method.slice(0, 64)) : typeof method
  return {
    ok: false,
    error: { code: 'invalid-input', message: `Unknown API method ${shown}; expected one of ${API_METHODS.join(', ')}.` }
  }
}

/** Validate the method name, call the backend, and never throw. */
export async function callBackend(backend: StrideBackend, method: unknown, input: unknown, context?: CallContext): Promise<CallEnvelope> {
  if (!isApiMethod(method)) return unknownMethodEnvelope(method)
  try {
    return { ok: true, result: await backend.call(method, input, context) }
  } catch (err) {
    return toErrorEnvelope(err, method)
  }
}
