/** A session's data structures ranked by misses, every method in one simulated pass. */
import type { ObjectsReport } from '../../../shared/domain'
import { computeObjects } from '../../session-analysis/session-objects'
import type { ObjectsTaskInput, TaskContext } from '../protocol'

export function objectsTask(input: ObjectsTaskInput, ctx: TaskContext): Promise<ObjectsReport> {
  return computeObjects(input.session, input.options, (p) => ctx.progress('simulating', p.events, p.total), ctx.shouldStop)
}
