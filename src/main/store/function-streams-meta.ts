/**
 * How a session's function stream statistics stand, in its meta (read by session-reader.ts,
 * written by stream-store.ts): a trace leaves them `on-request`; computed and kept, `computed`.
 * Apart, so the reader need not load the detectors.
 */
export const FUNCTION_STREAMS_KEY = 'functionStreams'
export const FUNCTION_STREAMS_ON_REQUEST = 'on-request'
export const FUNCTION_STREAMS_COMPUTED = 'computed'
