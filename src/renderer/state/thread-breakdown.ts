/**
 * Each reference's accesses per thread (getThreadBreakdown, one pass over the trace in a
 * worker), fetched once per session of several threads for the access-point table's column;
 * null for a single thread, while loading, or when the session keeps no threads (older ones).
 */
import { useEffect, useState } from 'react'
import { stride } from './stride'

type ByReference = ReadonlyMap<string, ReadonlyArray<{ thread: number; accesses: number }>>

export function useThreadBreakdown(session: string | null, threads: number | null): ByReference | null {
  const [state, setState] = useState<{ session: string; byReference: ByReference } | null>(null)
  useEffect(() => {
    if (!session || (threads ?? 1) < 2) return
    let live = true
    stride()
      .getThreadBreakdown({ session })
      .then(
        (b) => {
          if (live) setState({ session, byReference: new Map(b.references.map((r) => [r.reference, r.threads])) })
        },
        // Sessions from before threads were kept: the table simply has no thread column.
        () => {}
      )
    return () => {
      live = false
    }
  }, [session, threads])
  return state && state.session === session ? state.byReference : null
}
