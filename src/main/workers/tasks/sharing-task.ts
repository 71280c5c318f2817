/** Threads of a session (issue 50): the cache lines they share (two passes over the trace), each reference's accesses per thread (one). */
import type { SharedLines, ThreadBreakdown } from '../../../shared/domain'
import { sharedLines, threadBreakdown } from '../../session-analysis/session-sharing'
import type { FunctionStreamsTaskInput, SharingTaskInput, TaskContext } from '../protocol'

export async function sharingTask(input: SharingTaskInput, ctx: TaskContext): Promise<SharedLines> {
  const { db } = ctx.sessions.open(input.session)
  try {
    return await sharedLines(db, input.lineSize)
  } finally {
    db.close()
  }
}

export async function threadsTask(input: FunctionStreamsTaskInput, ctx: TaskContext): Promise<ThreadBreakdown> {
  const { db } = ctx.sessions.open(input.session)
  try {
    return threadBreakdown(db)
  } finally {
    db.close()
  }
}
