/**
 * A hierarchy's loop transforms as NestStreams over the session's points: each transform's
 * file matched against the files the points were recorded in, its two loops read from the
 * source (source-nest.ts), its points those recorded on the outer loop's lines; and the
 * streams chained over the decoded batches.
 */
import type { AccessPoint, LoopTransform } from '../../../shared/domain'
import type { AccessBatch } from '../hierarchy'
import { NestRefusal, type NestOrder } from './nest-plan'
import { NestStream } from './nest-stream'
import type { SourceNest } from './source-nest'

export type NestPoint = Pick<AccessPoint, 'index' | 'id' | 'file' | 'line' | 'kind' | 'sourceExpr'>

/** What the user is told a transform was: `interchange the loops at mm.c:7`. */
export function transformName(t: LoopTransform): string {
  const place = `${t.file.slice(t.file.lastIndexOf('/') + 1)}:${t.line}`
  return t.kind === 'interchange' ? `interchange the loops at ${place}` : `tile the loops at ${place} by ${t.tile}`
}

/** A refusal as the user reads it: what was asked, why not, and that nothing was simulated. */
export function refusalLine(t: LoopTransform, why: string): string {
  return `Cannot ${transformName(t)}: ${why}; nothing was simulated.`
}

function recordedFile(t: LoopTransform, points: readonly NestPoint[]): string {
  const files = [...new Set(points.map((p) => p.file).filter((f): f is string => f !== null))]
  const matches = files.includes(t.file) ? [t.file] : files.filter((f) => f.endsWith(`/${t.file}`))
  if (matches.length === 1) return matches[0]!
  if (matches.length > 1) throw new NestRefusal(`${t.file} matches ${matches.length} recorded files (${matches.join(', ')}); give more of its path`)
  throw new NestRefusal(`no recorded access is in ${t.file} (files with accesses: ${files.slice(0, 6).join(', ') || 'none'})`)
}

/**
 * One stream per transform, in order; throws NestRefusal (message: refusalLine) when a
 * transform names no nest, or two name overlapping nests.
 */
export async function nestStreams(transforms: readonly LoopTransform[], points: readonly NestPoint[], readNest: (file: string, line: number) => Promise<SourceNest>): Promise<NestStream[]> {
  const count = points.reduce((n, p) => Math.max(n, p.index + 1), 0)
  const writes = new Uint8Array(count)
  for (const p of points) writes[p.index] = p.kind === 'read' ? 0 : 1
  const byIndex = new Map(points.map((p) => [p.index, p]))
  const name = (index: number) => {
    const p = byIndex.get(index)
    return p ? `${p.id}${p.sourceExpr ? ` (${p.sourceExpr.trim()})` : ''}` : `point ${index}`
  }
  const taken = new Uint8Array(count)
  const streams: NestStream[] = []
  for (const t of transforms) {
    try {
      const file = recordedFile(t, points)
      const nest = await readNest(file, t.line)
      if ('refused' in nest) throw new NestRefusal(nest.refused)
      const inNest = new Uint8Array(count)
      let any = false
      for (const p of points) {
        if (p.file !== file || p.line === null || p.line < nest.outer.start || p.line > nest.outer.end) continue
        if (taken[p.index]) throw new NestRefusal('its loops overlap those of another transform given with it')
        inNest[p.index] = taken[p.index] = 1
        any = true
      }
      if (!any) throw new NestRefusal(`no recorded access is on the nest's lines (${nest.outer.start}-${nest.outer.end})`)
      const order: NestOrder = t.kind === 'interchange' ? { kind: 'interchange' } : { kind: 'tile', tile: t.tile }
      streams.push(new NestStream(inNest, writes, order, name))
    } catch (e) {
      if (e instanceof NestRefusal) throw new NestRefusal(refusalLine(t, e.message))
      throw e
    }
  }
  return streams
}

/**
 * The streams chained: `push` hands a batch through each in turn, `finish` each one's held run
 * through those after it. Refusals come out as NestRefusal with refusalLine's message.
 */
export function chainStreams(transforms: readonly LoopTransform[], streams: readonly NestStream[]): { push(batch: AccessBatch): AccessBatch[]; finish(): AccessBatch[] } {
  const step = (k: number, batches: AccessBatch[]): AccessBatch[] => {
    try {
      return batches.flatMap((b) => streams[k]!.push(b))
    } catch (e) {
      throw e instanceof NestRefusal ? new NestRefusal(refusalLine(transforms[k]!, e.message)) : e
    }
  }
  return {
    push(batch) {
      let out = [batch]
      for (let k = 0; k < streams.length; k++) out = step(k, out)
      return out
    },
    finish() {
      let out: AccessBatch[] = []
      for (let k = 0; k < streams.length; k++) {
        out = step(k, out)
        try {
          out.push(...streams[k]!.finish())
        } catch (e) {
          throw e instanceof NestRefusal ? new NestRefusal(refusalLine(transforms[k]!, e.message)) : e
        }
      }
      return out
    }
  }
}
