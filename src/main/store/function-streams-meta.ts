/**
 * A trace leaves its function stream statistics for a request: meta says `on-request`, and
 * once computed the `function_streams` rows are there (meta stays as the trace wrote it: its
 * digest vouches for it). Apart, so the session reader need not load the detectors.
 */
export const FUNCTION_STREAMS_KEY = 'functionStreams'
export const FUNCTION_STREAMS_ON_REQUEST = 'on-request'
