/**
 * The miss stream of one hierarchy level: every access of the trace goes through the
 * simulator (the same `Hierarchy` a run used, same config), and each miss at the chosen level
 * comes out as (access index, point, address), in execution order, batch by batch. Nothing
 * is kept: consumers (exact counts, samplers, the search) take each batch online, so memory
 * stays bounded whatever the trace length.
 *
 * The native simulator keeps the batch index of every miss at the chosen level (a modify's
 * read and write may both miss: the index twice), read after every batch.
 */
import type { HierarchyConfig } from '../../../shared/domain'
import type { AccessBatch } from '../../simulate/hierarchy'
import { NativeHierarchy } from '../../simulate/native-hierarchy'
import { batchMapper } from '../../simulate/layout-filter'

export interface MissBatch {
  count: number
  /** Global access index of each miss (0-based, in trace order). */
  access: Float64Array
  point: Uint32Array
  /** The address as traced (before any layout filter moved it): objects are found by it. */
  address: Float64Array
  /** Accesses simulated so far, this batch included (the virtual clock). */
  accessesSoFar: number
}

export interface MissStreamOptions {
  config: HierarchyConfig
  pointKinds: Uint8Array
  /** Level index (caches first, then TLB levels, as in a run). */
  level: number
  /** Maps traced addresses to the simulated layout (a run's layout filters); null: none. */
  mapAddresses?: ((from: Float64Array, to: Float64Array, count: number) => void) | null
}

export class MissStream {
  private readonly hierarchy: NativeHierarchy
  private readonly mapBatch: (<T extends AccessBatch>(batch: T) => T) | null
  private accesses = 0
  private out = { access: new Float64Array(1024), point: new Uint32Array(1024), address: new Float64Array(1024) }

  constructor(options: MissStreamOptions) {
    this.mapBatch = options.mapAddresses ? batchMapper(options.mapAddresses) : null
    this.hierarchy = new NativeHierarchy(options.config, options.pointKinds, { missLevel: options.level })
  }

  /** Simulates one batch; returns the misses it had at the level (valid until the next call). */
  run(batch: AccessBatch): MissBatch {
    const base = this.accesses
    const n = this.hierarchy.run(this.mapBatch ? this.mapBatch(batch) : batch)
    this.accesses += batch.count
    const at = n === 0 ? null : this.hierarchy.lastMisses()
    while (this.out.access.length < n) this.grow()
    for (let m = 0; m < n; m++) {
      const i = at![m]!
      this.out.access[m] = base + i
      this.out.point[m] = batch.points[i]!
      this.out.address[m] = batch.addresses[i]!
    }
    return { count: n, access: this.out.access, point: this.out.point, address: this.out.address, accessesSoFar: this.accesses }
  }

  private grow(): void {
    const size = this.out.access.length * 2
    const access = new Float64Array(size)
    access.set(this.out.access)
    const point = new Uint32Array(size)
    point.set(this.out.point)
    const address = new Float64Array(size)
    address.set(this.out.address)
    this.out = { access, point, address }
  }

  /** Level totals, to check the stream against the stored run. */
  totals(): ReturnType<NativeHierarchy['levelTotals']> {
    return this.hierarchy.levelTotals()
  }
}
