/** What `info` says of a session whose recording never reached `finish` (Stride was killed). */
export const UNFINISHED_MESSAGE = 'Stride stopped before the trace ended (killed or crashed); every chunk committed before is kept'
