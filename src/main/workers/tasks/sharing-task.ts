/** The cache lines a session's threads share (issue 50): two passes over the trace with each access's thread. */
import type { SharedLines } from '../../../shared/domain'
import { sharedLines } from '../../session-analysis/session-sharing'
import type { SharingTaskInput, TaskContext } from '../protocol'

export async function sharingTask(input: SharingTaskInput, ctx: TaskContext): Promise<SharedLines> {
  const { db } = ctx.sessions.open(input.session)
  try {
    return await sharedLines(db, input.lineSize)
  } finally {
    db.close()
  }
}
