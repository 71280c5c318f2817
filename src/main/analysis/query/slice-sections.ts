/**
 * Array sections answered exactly (`c[*,1]`, `m[0:9,*]`): the stored run counts per access
 * point, not per element, so a query with sections re-simulates the run's trace with the
 * run's hierarchy, splitting each access point into virtual points by which sections the
 * accessed element falls in. Hits and misses do not depend on point identity (evictor
 * ownership does, but no metric here reads it), so every virtual point's counts are exactly
 * the share of its point's counts that the section received, and the virtual points of a
 * point add up to the stored run. The stride prefetcher keeps state per point, so runs with
 * it are refused rather than answered approximately.
 *
 * Pure: batches in, facts out; the worker feeds it the stored chunks.
 */
import { StrideError } from '../../../shared/errors'
import type { HierarchyConfig } from '../../../shared/domain'
import { printDataItem, type DimSelector, type SliceQuery } from '../../../shared/slice-notation'
import { dimsText } from '../../../shared/dims-text'
import {
  STAT_EVICTIONS,
  STAT_FIELDS,
  STAT_READ_MISSES,
  STAT_READS,
  STAT_SPATIAL_HITS,
  STAT_TEMPORAL_HITS,
  STAT_WRITE_MISSES,
  STAT_WRITES,
  type AccessBatch
} from '../../simulate/hierarchy'
import { NativeHierarchy } from '../../simulate/native-hierarchy'
import type { PlacedVariable } from '../../simulate/layout-filter'
import type { SliceFact } from './slice-reduce'

/** At most this many array sections in one query (one bit each in a fact's mask). */
export const MAX_SECTIONS = 30

interface Section {
  bit: number
  start: number
  end: number
  elementSize: number
  dims: number[]
  selectors: DimSelector[]
}

/** Decides, per accessed address, which of the query's array sections it falls in. */
export class SectionClassifier {
  private readonly sections: Section[] = []
  /** Per dimension, the element's index (scratch). */
  private readonly index: number[] = []

  constructor(query: SliceQuery, variables: PlacedVariable[]) {
    const byName = new Map(variables.map((v) => [v.name, v]))
    let count = 0
    query.data.forEach((d, i) => {
      if (!d.section) return
      if (++count > MAX_SECTIONS) throw new StrideError(`At most ${MAX_SECTIONS} array sections in one query; split it.`, 'invalid-input')
      const v = byName.get(d.name)
      if (!v) throw new StrideError(`${printDataItem(d)}: "${d.name}" is not a data structure placed in this run (globals, stack locals and heap blocks with an address are); pick one from the list.`, 'not-found')
      const elementSize = v.elementSize ?? (v.dims ? null : 1)
      if (!elementSize) throw new StrideError(`${printDataItem(d)}: the element size of "${d.name}" is unknown (no array type in the debug information); select the whole "${d.name}".`, 'invalid-input')
      const dims = v.dims ?? [Math.floor(v.size / elementSize)]
      if (d.section.length !== dims.length)
        throw new StrideError(`${printDataItem(d)}: "${d.name}" has ${dims.length} dimension${dims.length > 1 ? 's' : ''} ${dimsText({ dims, dimsFrom: v.dimsFrom })}; give one selector per dimension, e.g. ${d.name}[${dims.map(() => '*').join(',')}].`, 'invalid-input')
      d.section.forEach((s, k) => {
        const top = s.kind === 'index' ? s.index : s.kind === 'range' ? s.to : 0
        if (top >= dims[k]!) throw new StrideError(`${printDataItem(d)}: index ${top} is out of bounds for dimension ${k + 1} of "${d.name}" (0..${dims[k]! - 1}).`, 'invalid-input')
      })
      this.sections.push({ bit: 2 ** i, start: v.start, end: v.start + v.size, elementSize, dims, selectors: d.section })
    })
  }

  get active(): boolean {
    return this.sections.length > 0
  }

  /** Sum of the bits of the sections that hold `address` (0: none). */
  mask(address: number): number {
    let mask = 0
    for (const s of this.sections) {
      if (address < s.start || address >= s.end) continue
      let element = Math.floor((address - s.start) / s.elementSize)
      // Row-major (C order): the last dimension varies fastest.
      for (let k = s.dims.length - 1; k >= 0; k--) {
        const extent = s.dims[k]!
        this.index[k] = element % extent
        element = Math.floor(element / extent)
      }
      let inside = true
      for (let k = 0; k < s.selectors.length && inside; k++) {
        const sel = s.selectors[k]!
        const at = this.index[k]!
        inside = sel.kind === 'all' || (sel.kind === 'index' ? at === sel.index : at >= sel.from && at <= sel.to)
      }
      if (inside) mask += s.bit
    }
    return mask
  }
}

/** Where a point sits in the program: copied onto each of its virtual points' facts. */
export interface PointPlace {
  function: string | null
  file: string | null
  line: number | null
  loop: number | null
}

export class SectionSimulation {
  private readonly hierarchy: NativeHierarchy
  private kinds: Uint8Array
  private virtualCount: number
  private readonly virtualOf = new Map<number, number>()
  /** Per virtual point (index - pointCount): its point and section mask. */
  private readonly origin: Array<{ point: number; mask: number }> = []
  private mapped = new Uint32Array(0)
  private readonly levels: number

  constructor(
    config: HierarchyConfig,
    private readonly pointKinds: Uint8Array,
    private readonly classifier: SectionClassifier
  ) {
    if (config.levels.some((l) => l.prefetch === 'stride'))
      throw new StrideError('Array sections cannot be answered exactly for a run with a stride prefetcher (it tracks strides per reference); select whole data structures, or query a run without it.', 'invalid-input')
    this.kinds = pointKinds
    this.virtualCount = pointKinds.length
    this.hierarchy = new NativeHierarchy(config, pointKinds)
    this.levels = config.levels.length + (config.tlb?.length ?? 0)
  }

  /** Simulates one batch; `original` holds the addresses as traced (before layout filters). */
  feed(batch: AccessBatch, original: Float64Array = batch.addresses): void {
    const n = batch.count
    if (this.mapped.length < n) this.mapped = new Uint32Array(n)
    const points = this.mapped
    const base = this.pointKinds.length
    let grew = false
    for (let i = 0; i < n; i++) {
      const p = batch.points[i]!
      const mask = this.classifier.mask(original[i]!)
      if (mask === 0) {
        points[i] = p
        continue
      }
      const key = p * 2 ** 31 + mask
      let v = this.virtualOf.get(key)
      if (v === undefined) {
        v = this.virtualCount++
        this.virtualOf.set(key, v)
        this.origin.push({ point: p, mask })
        grew = true
      }
      points[i] = v
    }
    if (grew) {
      // Virtual points share their point's kind (read, write or modify).
      const kinds = new Uint8Array(this.virtualCount)
      kinds.set(this.pointKinds)
      for (let v = base; v < this.virtualCount; v++) kinds[v] = this.pointKinds[this.origin[v - base]!.point]!
      this.kinds = kinds
      this.hierarchy.setPointKinds(kinds)
    }
    this.hierarchy.run({ count: n, points: points.subarray(0, n), addresses: batch.addresses, sizes: batch.sizes })
  }

  get accesses(): number {
    return this.hierarchy.accesses
  }

  /** Facts of the section accesses, one per virtual point and level. */
  facts(places: PointPlace[], variableOfMask: (mask: number) => string): SliceFact[] {
    this.hierarchy.finish()
    const stats = this.hierarchy.pointResults()
    const base = this.pointKinds.length
    const out: SliceFact[] = []
    this.origin.forEach(({ point, mask }, i) => {
      const place = places[point] ?? { function: null, file: null, line: null, loop: null }
      for (let l = 0; l < this.levels; l++) {
        const at = ((base + i) * this.levels + l) * STAT_FIELDS
        const reads = stats[at + STAT_READS]!
        const writes = stats[at + STAT_WRITES]!
        if (reads === 0 && writes === 0) continue
        out.push({
          variable: variableOfMask(mask),
          ...place,
          sections: mask,
          level: l,
          reads,
          writes,
          readMisses: stats[at + STAT_READ_MISSES]!,
          writeMisses: stats[at + STAT_WRITE_MISSES]!,
          temporalHits: stats[at + STAT_TEMPORAL_HITS]!,
          spatialHits: stats[at + STAT_SPATIAL_HITS]!,
          evictions: stats[at + STAT_EVICTIONS]!
        })
      }
    })
    return out
  }
}
