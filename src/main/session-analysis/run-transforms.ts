/**
 * A run's loop transforms (simulate/transform/) over the stored chunks, for every pass that
 * simulates a run's configuration again (the simulate task, the advisor's miss classes, the
 * objects ranking, array-section queries), so each sees the trace the run simulated.
 */
import type { HierarchyConfig } from '../../shared/domain'
import { StrideError } from '../../shared/errors'
import type { AccessBatch } from '../simulate/hierarchy'
import { NestRefusal } from '../simulate/transform/nest-plan'
import type { NestPoint } from '../simulate/transform/nest-streams'

export interface TransformChain {
  push(batch: AccessBatch): AccessBatch[]
  finish(): AccessBatch[]
}

/** A transform's refusal as the user's one line (invalid input: nothing is simulated). */
export function refusedAsInput<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    if (e instanceof NestRefusal) throw new StrideError(e.message, 'invalid-input')
    throw e
  }
}

/** The configuration's transforms chained, or null without any. Loads the source parser only then. */
export async function transformsOf(config: HierarchyConfig, points: () => readonly NestPoint[]): Promise<TransformChain | null> {
  if (!config.transforms || config.transforms.length === 0) return null
  const [{ nestStreams, chainStreams }, { nestInFile }] = await Promise.all([import('../simulate/transform/nest-streams'), import('../simulate/transform/source-nest')])
  const transforms = config.transforms
  try {
    return chainStreams(transforms, await nestStreams(transforms, points(), nestInFile))
  } catch (e) {
    if (e instanceof NestRefusal) throw new StrideError(e.message, 'invalid-input')
    throw e
  }
}

/** The chunks as the run simulated them (each batch valid until the next is asked for). */
export function* transformed(chunks: Iterable<AccessBatch>, chain: TransformChain | null): Generator<AccessBatch> {
  if (!chain) return yield* chunks
  for (const chunk of chunks) yield* refusedAsInput(() => chain.push(chunk))
  yield* refusedAsInput(() => chain.finish())
}

export async function* transformedAhead(chunks: AsyncIterable<AccessBatch>, chain: TransformChain | null): AsyncGenerator<AccessBatch> {
  if (!chain) return yield* chunks
  for await (const chunk of chunks) yield* refusedAsInput(() => chain.push(chunk))
  yield* refusedAsInput(() => chain.finish())
}
