import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, MissClassCount, MissClasses, ReferenceStats, RunReport, VariableInfo } from '../../../shared/domain'
import { diagnoseRun } from './diagnose'
import { computeSetPadding } from './padding'

const L1: CacheLevelConfig = { name: 'L1', size: 131072, assoc: 2, lineSize: 128, policy: 'lru' }

interface RefSpec {
  id: string
  variable: string | null
  line: number
  hits: number
  misses: number
  reuse?: number
  temporalHits?: number
  regularity?: number
  stride?: number
  meanStream?: number
  evictors?: Array<[by: string, count: number]>
  disasm?: string
  sourceExpr?: string
}

function ref(s: RefSpec): ReferenceStats {
  const total = (s.evictors ?? []).reduce((a, [, c]) => a + c, 0)
  return {
    id: s.id,
    pc: '0x401000',
    kind: 'read',
    file: '/ex/kernel.c',
    line: s.line,
    function: 'kernel',
    variable: s.variable,
    disasm: s.disasm ?? null,
    sourceExpr: s.sourceExpr ?? null,
    reads: s.hits + s.misses,
    writes: 0,
    levels: {
      L1: { hits: s.hits, misses: s.misses, readMisses: s.misses, writeMisses: 0, temporalHits: s.temporalHits ?? 0, spatialHits: s.hits - (s.temporalHits ?? 0), ...(s.reuse === undefined ? {} : { spatialReuse: s.reuse }) }
    },
    ...(s.regularity === undefined
      ? {}
      : {
          streams: {
            regularity: s.regularity,
            meanStreamLength: s.meanStream ?? 8192,
            streams: 1,
            distinctLengths: 1,
            distinctStrides: s.stride === undefined ? 0 : 1,
            lengths: [],
            strides: s.stride === undefined ? [] : [{ stride: s.stride, fraction: 1 }]
          }
        }),
    evictors: (s.evictors ?? []).map(([by, count]) => ({ level: 'L1', by, count, fraction: count / total }))
  }
}

const global = (name: string, start: number, size = 65536): VariableInfo => ({
  name,
  kind: 'global',
  start: `0x${start.toString(16)}`,
  size,
  type: 'double [8192]',
  elementSize: 8,
  dims: [size / 8],
  dimsFrom: 'type',
  allocSite: null,
  reads: 0,
  writes: 0
})

function report(refs: RefSpec[], variables: VariableInfo[] = [], level: CacheLevelConfig = L1): RunReport {
  return {
    run: 3,
    config: { levels: [level], cachegrindCompatible: false, layout: [] },
    levels: [{ name: level.name, reads: 0, writes: 0, readMisses: 0, writeMisses: 0 }],
    lines: [],
    references: refs.map(ref),
    variables
  }
}

/** Miss classes for a run at L1: id -> [compulsory, capacity, conflict, sets]. */
function classes(byId: Record<string, [number, number, number, number?]>, sets = 512): MissClasses {
  const byReference: Record<string, MissClassCount> = {}
  for (const [id, [compulsory, capacity, conflict, used]] of Object.entries(byId)) byReference[id] = { compulsory, capacity, conflict, sets: used ?? null }
  return { level: 'L1', sets, source: 'every access of the trace', byReference }
}

// The conflict example as simulated (METRIC 10.3, Figure 15/16): A, B, C 64 KiB apart.
const BASE = 0x4040a0
const CONFLICT = report(
  [
    { id: 'A_Read_0', variable: 'A', line: 30, hits: 0, misses: 8192, reuse: 0.0625, regularity: 1, stride: 8, evictors: [['C_Read_2', 8192]] },
    { id: 'B_Read_1', variable: 'B', line: 30, hits: 0, misses: 8192, reuse: 0.0625, regularity: 1, stride: 8, evictors: [['A_Read_0', 7680], ['unknown_Read_3', 1]] },
    { id: 'C_Read_2', variable: 'C', line: 30, hits: 0, misses: 8192, reuse: 0.0625, regularity: 1, stride: 8, evictors: [['B_Read_1', 7680]] },
    { id: 'unknown_Read_3', variable: null, line: 29, hits: 0, misses: 1 }
  ],
  [global('C', BASE + 0x20000), global('A', BASE), global('B', BASE + 0x10000)]
)

const CONFLICT_CLASSES = classes({ A_Read_0: [512, 0, 7680, 64], B_Read_1: [512, 0, 7680, 64], C_Read_2: [512, 0, 7680, 64], unknown_Read_3: [1, 0, 0, 1] })

describe('diagnoseRun', () => {
  it('diagnoses the conflict example: cycle A↔B↔C, all stride 8 → pad; try +1 KiB', () => {
    // Padded, the misses are one per line (512 each): the rest only the set mapping causes.
    const advice = diagnoseRun(CONFLICT, { level: 'L1', classes: CONFLICT_CLASSES })
    expect(advice.examined).toBe(3) // the one-miss stray is not hot
    expect(advice.items).toHaveLength(1)
    const [c] = advice.items
    expect(c!.diagnosis).toBe('conflict')
    expect(c!.title).toBe('Conflict misses: evictor cycle A↔B↔C')
    expect(c!.references).toEqual(['A_Read_0', 'B_Read_1', 'C_Read_2'])
    expect(c!.misses).toBe(24576)
    expect(c!.share).toBeCloseTo(24576 / 24577)
    expect(c!.evidence.join(' | ')).toContain('all regular, all stride 8')
    expect(c!.evidence.join(' | ')).toContain('miss ratio 1.00')
    expect(c!.evidence.join(' | ')).toContain('spatial reuse 0.06')
    expect(c!.evidence[0]).toContain('A_Read_0 evicts B_Read_1 (100% of its evictions)')
    expect(c!.evidence).toContain('misses by cause: 1,536 first touches, 0 capacity, 23,040 conflict (94%: a fully associative 128 KiB L1 would have hit them)')
    expect(c!.evidence).toContain('their lines fall in 64, 64, 64 of the 512 L1 sets (2 ways each)')
    expect(c!.suggestion).toContain('try +1 KiB between them')
    // B moves 1 KiB; C moves with B and 1 KiB more: A, B, C at set offsets 0, 1 KiB, 2 KiB (METRIC's padding).
    expect(c!.action).toEqual({
      kind: 'layout',
      label: 'Pad B +1 KiB, C +1 KiB',
      layout: [
        { kind: 'external', variable: 'B', bytes: 1024 },
        { kind: 'external', variable: 'C', bytes: 1024 }
      ]
    })
  })

  it('names a column walk: regular, single stride 8000, miss ratio 1.0 → loop interchange or prefetch (METRIC 10.2)', () => {
    const advice = diagnoseRun(
      report(
        [
          { id: 'B_Read_1', variable: 'B', line: 8, hits: 0, misses: 1000, reuse: 0.06, regularity: 1, stride: 8000, meanStream: 1000 },
          { id: 'A_Read_0', variable: 'A', line: 8, hits: 938, misses: 62, reuse: 1, regularity: 1, stride: 8, meanStream: 1000 }
        ],
        [global('A', 0x10000, 8_000_000), global('B', 0x800000, 8_000_000)],
        { name: 'L1', size: 32768, assoc: 2, lineSize: 128, policy: 'lru' }
      ),
      { level: 'L1' }
    )
    const [b, a] = advice.items
    expect(b!.diagnosis).toBe('large-stride')
    expect(b!.evidence).toContain('regular (regularity 1.00), single stride 8000, mean stream 1000')
    expect(b!.evidence).toContain('miss ratio 1.00 (1,000 of 1,000 at L1)')
    expect(b!.evidence).toContain('stride 8000 bytes = 1000 elements of 8 bytes')
    expect(b!.title).toBe('Large stride: B_Read_1')
    expect(b!.suggestion).toMatch(/interchange the loops/i)
    expect(b!.action).toMatchObject({ kind: 'levels', levels: [{ name: 'L1', prefetch: 'stride' }] })
    // The code change it names, in one click: the loops around its line interchanged.
    expect(b!.codeAction).toEqual({ kind: 'transform', label: 'Interchange the loops around kernel.c:8', transforms: [{ kind: 'interchange', file: '/ex/kernel.c', line: 8 }] })
    // A is a plain stream: one miss per 128-byte line, long streams → prefetch.
    expect(a!.diagnosis).toBe('streaming')
    expect(a!.action).toMatchObject({ kind: 'levels', levels: [{ prefetch: 'next-line' }] })
  })

  it('offers a loop transform once: not on a run that already has it; tiling for capacity misses', () => {
    const refs: RefSpec[] = [{ id: 'B_Read_1', variable: 'B', line: 8, hits: 0, misses: 1000, reuse: 0.06, regularity: 1, stride: 8000, meanStream: 1000 }]
    const vars = [global('B', 0x800000, 8_000_000)]
    const base = report(refs, vars)
    const done = { ...base, config: { ...base.config, transforms: [{ kind: 'interchange' as const, file: '/ex/kernel.c', line: 8 }] } }
    expect(diagnoseRun(done, { level: 'L1' }).items[0]!.codeAction).toBeUndefined()
    const capacity = diagnoseRun(base, { level: 'L1', classes: classes({ B_Read_1: [10, 990, 0] }) }).items[0]!
    // 128 KiB of 128-byte lines: 16 x 16 tiles (two references' 16 lines, 16 times over, fit; 32 would not).
    expect(capacity.codeAction).toMatchObject({ kind: 'transform', transforms: [{ kind: 'tile', file: '/ex/kernel.c', line: 8, tile: 16 }] })
    // A loop whose source is not here (a library's, glibc's malloc.c): no code change to offer,
    // the rest of the diagnosis as it was.
    const elsewhere = diagnoseRun(base, { level: 'L1', classes: classes({ B_Read_1: [10, 990, 0] }), transformable: (f) => f !== '/ex/kernel.c' }).items[0]!
    expect(elsewhere.codeAction).toBeUndefined()
    expect({ ...elsewhere, codeAction: capacity.codeAction }).toEqual(capacity)
  })

  it('calls an irregular gather irregular, and flags it as polluting when it evicts the others (METRIC 10.1)', () => {
    const advice = diagnoseRun(
      report([
        { id: 'D_Read_12', variable: 'D', line: 13, hits: 100, misses: 1400, reuse: 0.06, temporalHits: 1, regularity: 0, evictors: [['C_Read_11', 700]] },
        { id: 'A_Read_6', variable: 'A', line: 7, hits: 900, misses: 100, reuse: 0.9, regularity: 1, stride: 8, evictors: [['D_Read_12', 60], ['C_Read_11', 40]] },
        { id: 'B_Read_7', variable: 'B', line: 7, hits: 900, misses: 100, reuse: 0.9, regularity: 1, stride: 8, evictors: [['D_Read_12', 70], ['C_Read_11', 30]] },
        { id: 'C_Read_11', variable: 'C', line: 13, hits: 100, misses: 1300, reuse: 0.06, regularity: 0, evictors: [['D_Read_12', 600]] }
      ]),
      { level: 'L1' }
    )
    const kinds = advice.items.map((i) => `${i.diagnosis}:${i.references.join(',')}`)
    expect(kinds).toContain('irregular:D_Read_12')
    expect(kinds).toContain('pollution:D_Read_12')
    const pollution = advice.items.find((i) => i.diagnosis === 'pollution' && i.references[0] === 'D_Read_12')!
    expect(pollution.evidence[0]).toMatch(/^causes \d+% of all L1 evictions/)
    expect(pollution.suggestion).toMatch(/non-temporal/)
    expect(kinds).toContain('irregular:C_Read_11')
    // C and D evict each other at random: no conflict cycle, and nothing to pad.
    expect(advice.items.some((i) => i.references.length > 1 || i.diagnosis === 'conflict')).toBe(false)
  })

  it('METRIC 10.1: a cycle through irregular gathers is pollution, not a conflict; the streams they sweep are told so', () => {
    // Numbers from the bundled reuse example at a 256 KiB 8-way L2 (128-byte lines).
    const advice = diagnoseRun(
      report([
        { id: 'A_Read_0', variable: 'A', line: 7, hits: 96053, misses: 6347, reuse: 1, regularity: 1, stride: 8, meanStream: 10240, evictors: [['C_Read_5', 2800], ['D_Read_6', 2950], ['A_Read_0', 500]] },
        { id: 'B_Read_1', variable: 'B', line: 7, hits: 96072, misses: 6328, reuse: 1, regularity: 1, stride: 8, meanStream: 10240, evictors: [['C_Read_5', 1900], ['D_Read_6', 3860], ['B_Read_1', 500]] },
        { id: 'C_Read_5', variable: 'C', line: 13, hits: 428, misses: 14572, reuse: 0.06, temporalHits: 330, regularity: 0, evictors: [['A_Read_0', 2700], ['D_Read_6', 5100], ['C_Read_5', 4600]] },
        { id: 'D_Read_6', variable: 'D', line: 13, hits: 176, misses: 14824, reuse: 0.06, temporalHits: 67, regularity: 0, evictors: [['B_Read_1', 3700], ['C_Read_5', 5200], ['D_Read_6', 2800]] }
      ]),
      { level: 'L1' }
    )
    expect(advice.items.map((i) => `${i.diagnosis}:${i.references.join()}`)).toEqual([
      'irregular:D_Read_6',
      'pollution:D_Read_6',
      'irregular:C_Read_5',
      'pollution:C_Read_5',
      'streaming:A_Read_0',
      'streaming:B_Read_1'
    ])
    const a = advice.items.find((i) => i.references[0] === 'A_Read_0')!
    expect(a.evidence).toContain('top evictor D_Read_6 (47% of its evictions) is irregular')
    expect(a.suggestion).toMatch(/D_Read_6 evicts its lines; with that reference hinted non-temporal/)
  })

  it('reads a cycle whose misses a fully associative cache has too as capacity misses, not a conflict, and offers a bigger cache', () => {
    const advice = diagnoseRun(
      report(
        [
          { id: 'X_Read_0', variable: 'X', line: 5, hits: 900, misses: 100, reuse: 0.95, regularity: 1, stride: 8, evictors: [['Y_Read_1', 100]] },
          { id: 'Y_Read_1', variable: 'Y', line: 5, hits: 900, misses: 100, reuse: 0.95, regularity: 1, stride: 8, evictors: [['X_Read_0', 100]] }
        ],
        [global('X', 0x1000), global('Y', 0x20000)]
      ),
      { level: 'L1', classes: classes({ X_Read_0: [20, 75, 5], Y_Read_1: [20, 75, 5] }) }
    )
    expect(advice.items).toHaveLength(1)
    expect(advice.items[0]!.diagnosis).toBe('capacity')
    expect(advice.items[0]!.references).toEqual(['X_Read_0', 'Y_Read_1'])
    expect(advice.items[0]!.action).toEqual({ kind: 'levels', label: 'Try L1 256 KiB', levels: [{ ...L1, size: 262144 }] })
  })

  it('after METRIC\'s padding the cycle remains but the misses are one per line: streaming, not capacity', () => {
    const padded = report(
      [
        { id: 'A_Read_0', variable: 'A', line: 30, hits: 7680, misses: 512, reuse: 1, regularity: 1, stride: 8, evictors: [['C_Read_2', 512]] },
        { id: 'B_Read_1', variable: 'B', line: 30, hits: 7680, misses: 512, reuse: 1, regularity: 1, stride: 8, evictors: [['A_Read_0', 460], ['unknown_Read_3', 52]] },
        { id: 'C_Read_2', variable: 'C', line: 30, hits: 7680, misses: 512, reuse: 1, regularity: 1, stride: 8, evictors: [['B_Read_1', 512]] }
      ],
      [global('A', BASE), global('B', BASE + 0x10400), global('C', BASE + 0x20800)]
    )
    const advice = diagnoseRun(padded, { level: 'L1' })
    // The three alike streams are one item, their misses added up.
    expect(advice.items).toHaveLength(1)
    const [streams] = advice.items
    expect(streams!.diagnosis).toBe('streaming')
    expect(streams!.title).toBe('Streaming misses: A_Read_0, B_Read_1, C_Read_2')
    expect(streams!.misses).toBe(1536)
    expect(streams!.evidence).toContain('miss ratio 0.06 (1,536 of 24,576 at L1)')
    expect(streams!.evidence).toContain('about one miss per line (a stride-8 stream over 128-byte lines misses 0.0625 of the time)')
  })

  it('ignores weak evictor edges when looking for cycles', () => {
    const r = report([
      { id: 'X_Read_0', variable: 'X', line: 5, hits: 0, misses: 100, reuse: 0.1, regularity: 1, stride: 8, evictors: [['Y_Read_1', 5], ['Z_Read_2', 95]] },
      { id: 'Y_Read_1', variable: 'Y', line: 5, hits: 0, misses: 100, reuse: 0.1, regularity: 1, stride: 8, evictors: [['X_Read_0', 100]] },
      { id: 'Z_Read_2', variable: 'Z', line: 6, hits: 0, misses: 10 }
    ])
    expect(diagnoseRun(r, { level: 'L1' }).items.some((i) => i.references.length > 1)).toBe(false)
  })

  it('rejects a level the run does not have, naming the ones it has', () => {
    expect(() => diagnoseRun(CONFLICT, { level: 'L3' })).toThrow('"L3" is not a cache level of run 3; pick one of L1.')
  })

  it('gives no advice on a run without misses', () => {
    const quiet = diagnoseRun(report([{ id: 'A_Read_0', variable: 'A', line: 1, hits: 10, misses: 0, reuse: 1, regularity: 1, stride: 8 }]), { level: 'L1' })
    expect(quiet).toEqual({ run: 3, level: 'L1', items: [], examined: 0, totalMisses: 0 })
  })

  it('never calls a cycle a conflict without the set-mapping check', () => {
    const advice = diagnoseRun(CONFLICT, { level: 'L1' })
    expect(advice.items.some((i) => i.diagnosis === 'conflict')).toBe(false)
  })

  // A user's program (fixtures/listmult.c, cc -g -O2, PIE) at L1 32K 8-way 64-byte lines: the
  // matrix product's b[k][j] holds 76% of the misses, the list walk 22%.
  const LISTMULT = report(
    [
      { id: 'pool_Read_6', variable: 'pool', line: 5, hits: 0, misses: 32768, reuse: 0.25, regularity: 0, stride: 19136, meanStream: 3, disasm: 'add    (%rdi),%rax', sourceExpr: 'p->value', evictors: [['pool_Read_6', 30000]] },
      { id: 'pool_Read_7', variable: 'pool', line: 5, hits: 32768, misses: 0, reuse: 0.25, regularity: 0, disasm: 'mov    0x8(%rdi),%rdi', sourceExpr: 'p->next' },
      { id: 'a_Read_1', variable: 'a', line: 20, hits: 441215, misses: 1153, reuse: 1, regularity: 1, stride: 8, meanStream: 98, evictors: [['b_Read_2', 1140]] },
      { id: 'b_Read_2', variable: 'b', line: 20, hits: 331561, misses: 110807, reuse: 1, regularity: 1, stride: 768, meanStream: 96, disasm: 'mulpd  -0x300(%rax),%xmm0', sourceExpr: 'b[k][j]', evictors: [['b_Read_2', 108027], ['c_Write_3', 1149], ['a_Read_1', 1140]] },
      { id: 'c_Write_3', variable: 'c', line: 21, hits: 3455, misses: 1153, reuse: 1, regularity: 1, stride: 16, meanStream: 4608, evictors: [['b_Read_2', 1145]] }
    ],
    [
      { ...global('a', 0x4060, 73728), type: 'double [96][96]', dims: [96, 96] },
      { ...global('b', 0x16060, 73728), type: 'double [96][96]', dims: [96, 96] },
      { ...global('c', 0x28060, 73728), type: 'double [96][96]', dims: [96, 96] },
      { ...global('pool', 0x5000000, 262144), kind: 'heap', type: null, elementSize: null, dims: null }
    ],
    { name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }
  )
  const LISTMULT_CLASSES = classes({ pool_Read_6: [4096, 28672, 0, 64], pool_Read_7: [0, 0, 0, 64], a_Read_1: [1152, 1, 0, 64], b_Read_2: [1152, 0, 109655, 16], c_Write_3: [1152, 1, 0, 64] }, 64)

  it('names the column walk holding most misses first, with the set mapping, and offers row padding', () => {
    const advice = diagnoseRun(LISTMULT, { level: 'L1', classes: LISTMULT_CLASSES })
    const [first, second] = advice.items
    expect(first!.references).toEqual(['b_Read_2'])
    expect(first!.diagnosis).toBe('large-stride')
    expect(first!.title).toBe('Column walk: b_Read_2 (b[k][j])')
    expect(first!.evidence).toContain('stride 768 bytes = 96 elements of 8 bytes = one row of b (96×96)')
    expect(first!.evidence).toContain('a stride of 768 bytes (12 lines) visits 16 of the 64 L1 sets, so at most 128 of its lines stay cached at once')
    expect(first!.suggestion).toMatch(/walks a column of b/)
    expect(first!.suggestion).toMatch(/i-k-j order/)
    expect(first!.action).toEqual({ kind: 'layout', label: 'Pad the rows of b to 104 elements', layout: [{ kind: 'internal', variable: 'b', dim: 1, extent: 104, order: 'row' }] })
    expect(second!.diagnosis).toBe('pointer-chase')
    expect(second!.title).toBe('Pointer chase: pool_Read_6 (p->value)')
    expect(second!.suggestion).not.toMatch(/index vector/)
    expect(advice.items.some((i) => i.diagnosis === 'conflict')).toBe(false)
  })

  it('carries the classes of the references with misses only (the rest had none; most of a whole program)', () => {
    const advice = diagnoseRun(LISTMULT, { level: 'L1', classes: LISTMULT_CLASSES })
    expect(Object.keys(advice.classes!.byReference).sort()).toEqual(['a_Read_1', 'b_Read_2', 'c_Write_3', 'pool_Read_6'])
    expect(advice.classes!.byReference.b_Read_2).toEqual(LISTMULT_CLASSES.byReference.b_Read_2)
    expect({ ...advice.classes, byReference: {} }).toEqual({ ...LISTMULT_CLASSES, byReference: {} })
  })

  it("says when the rows it names were inferred from strides (a heap block's, no array type)", () => {
    const inferred = { ...LISTMULT, variables: LISTMULT.variables!.map((v) => (v.name === 'b' ? { ...v, kind: 'heap' as const, type: 'double [9216]', dimsFrom: 'strides' as const } : v)) }
    const [first] = diagnoseRun(inferred, { level: 'L1', classes: LISTMULT_CLASSES }).items
    expect(first!.evidence).toContain('stride 768 bytes = 96 elements of 8 bytes = one row of b (96×96, inferred from strides)')
    expect(first!.action).toMatchObject({ kind: 'layout', layout: [{ kind: 'internal', variable: 'b', dim: 1, extent: 104 }] })
  })

  it('without the set-mapping check a column walk still leads, with a stride prefetcher to try', () => {
    const [first] = diagnoseRun(LISTMULT, { level: 'L1' }).items
    expect(first!.title).toBe('Column walk: b_Read_2 (b[k][j])')
    expect(first!.action).toMatchObject({ kind: 'levels', levels: [{ prefetch: 'stride' }] })
  })

  it('gives every reference with a large share of the misses a diagnosis from its miss classes', () => {
    const r = report([
      { id: 'T_Read_0', variable: 'T', line: 3, hits: 500, misses: 500, reuse: 0.7, regularity: 0.7, stride: 8 },
      { id: 'U_Read_1', variable: 'U', line: 4, hits: 9000, misses: 1000, reuse: 0.9, regularity: 0.7, stride: 8 }
    ])
    const advice = diagnoseRun(r, { level: 'L1', classes: classes({ T_Read_0: [50, 400, 50], U_Read_1: [900, 50, 50] }) })
    expect(advice.items.map((i) => `${i.diagnosis}:${i.references.join()}`)).toEqual(['streaming:U_Read_1', 'capacity:T_Read_0'])
  })

  it('flags a reference missing the data TLB on most accesses and offers 2 MiB pages', () => {
    const r = report([{ id: 'table_Read_3', variable: 'table', line: 17, hits: 0, misses: 16384, reuse: 0.125, regularity: 1, stride: 4096 }], [{ ...global('table', 0x5000000, 8388608), kind: 'heap' }])
    r.config.tlb = [{ name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096 }]
    r.references[0]!.levels.DTLB = { hits: 0, misses: 16384, readMisses: 16384, writeMisses: 0 }
    const tlb = diagnoseRun(r, { level: 'L1' }).items.find((i) => i.diagnosis === 'tlb')!
    expect(tlb.title).toBe('TLB misses: table_Read_3')
    expect(tlb.evidence).toContain('stride 4096 bytes ≥ the 4 KiB page: every access is on a new page')
    expect(tlb.evidence).toContain('table spans 8 MiB (2,048 pages)')
    expect(tlb.action).toEqual({ kind: 'tlb', label: 'Try 2 MiB pages', tlb: [{ name: 'DTLB', entries: 64, assoc: 4, pageSize: 2097152 }] })
  })
})

// lz4's shape (issue 47): an input buffer read at scattered match positions and a hash table
// indexed by hashes, evicting each other in a 128 KiB L1; a short copy with stride 8 that uses
// whole lines.
const LZ4_LIKE = report(
  [
    { id: 'src_Read_1070', variable: 'srcBuffer', line: 1070, hits: 900, misses: 4000, reuse: 0.13, temporalHits: 600, regularity: 0.01, stride: 0, meanStream: 6, evictors: [['table_Read_837', 2600], ['src_Read_1070', 1300], ['dst_Write_450', 100]] },
    { id: 'table_Read_837', variable: 'heap@lz4frame.c:123', line: 837, hits: 12000, misses: 1100, reuse: 0.32, regularity: 0, stride: 0, meanStream: 3, sourceExpr: 'hashTable[h]', evictors: [['src_Read_1070', 800], ['table_Read_837', 200]] },
    { id: 'copy_Read_386', variable: 'srcBuffer', line: 386, hits: 4400, misses: 600, reuse: 1, regularity: 0.56, stride: 8, meanStream: 7 },
    { id: 'dst_Write_450', variable: 'dstBuffer', line: 450, hits: 10, misses: 1, reuse: 1, regularity: 1, stride: 8 }
  ],
  [{ ...global('srcBuffer', 0x7000000, 1 << 20), kind: 'heap' }, { ...global('heap@lz4frame.c:123', 0x6000000, 16384), kind: 'heap' }]
)
// copy_Read_386's streams: 97% stride 8 (the spec gives one stride; the rule reads its share).
LZ4_LIKE.references[2]!.streams!.strides = [{ stride: 8, fraction: 0.97 }, { stride: 4096, fraction: 0.03 }]
LZ4_LIKE.references[2]!.streams!.distinctStrides = 2

describe('diagnoseRun on an irregular program (issue 47)', () => {
  it('says which data structures evict which, by the names the source gives them, and what to change', () => {
    const advice = diagnoseRun(LZ4_LIKE, { level: 'L1', classes: classes({ src_Read_1070: [100, 3800, 100], table_Read_837: [10, 1000, 90], copy_Read_386: [600, 0, 0] }) })
    const src = advice.items.find((i) => i.references.includes('src_Read_1070'))!
    expect(src.diagnosis).toBe('irregular')
    expect(src.evidence).toContain("in L1, srcBuffer's lines are evicted by hashTable (heap@lz4frame.c:123) 65%, srcBuffer itself 33% (of 4,000 evictions); hashTable (heap@lz4frame.c:123)'s lines are evicted by srcBuffer 80%")
    expect(src.suggestion).toMatch(/^srcBuffer and hashTable \(heap@lz4frame.c:123\) evict each other from the 128 KiB L1/)
    // The hash table's misses are capacity misses at irregular places: no loop tiling is offered.
    const table = advice.items.find((i) => i.references.includes('table_Read_837'))!
    expect(table.diagnosis).toBe('capacity')
    expect(table.codeAction).toBeUndefined()
    expect(table.suggestion).not.toMatch(/tile/)
    expect(table.suggestion).toMatch(/hashTable \(heap@lz4frame.c:123\) and srcBuffer evict each other/)
  })

  it('calls a short copy of whole lines short sequential runs, not irregular, and offers a next-line prefetcher', () => {
    const copy = diagnoseRun(LZ4_LIKE, { level: 'L1' }).items.find((i) => i.references.includes('copy_Read_386'))!
    expect(copy.title).toBe('Short sequential runs: copy_Read_386')
    expect(copy.suggestion).not.toMatch(/cannot predict/)
    expect(copy.suggestion).toMatch(/97% of them step 8 bytes/)
    expect(copy.action).toMatchObject({ kind: 'levels', levels: [{ prefetch: 'next-line' }] })
  })

  it('a large stride whose accesses mostly hit says so instead of "every access lands on a new line"', () => {
    const r = report([{ id: 'B_Read_9', variable: 'B', line: 9, hits: 8700, misses: 1300, reuse: 0.9, regularity: 1, stride: 8192 }], [global('B', 0x404000, 8 << 20)])
    const item = diagnoseRun(r, { level: 'L1' }).items[0]!
    expect(item.diagnosis).toBe('large-stride')
    expect(item.suggestion).not.toMatch(/every access lands/)
    expect(item.suggestion).toMatch(/Most of those accesses still hit \(miss ratio 0.13/)
  })
})

describe('computeSetPadding', () => {
  it('moves the arrays after the first to set offsets 1 KiB apart, whatever their current offsets', () => {
    // B sits 256 bytes past A's set offset, C exactly on it.
    const p = computeSetPadding([global('A', 0x100000), global('B', 0x110100), global('C', 0x120000)], L1)
    expect(p).toEqual({
      spacing: 1024,
      order: ['A', 'B', 'C'],
      filters: [
        { kind: 'external', variable: 'B', bytes: 768 },
        { kind: 'external', variable: 'C', bytes: 1280 }
      ]
    })
  })

  it('shrinks the spacing when the cache has too few sets for 1 KiB steps', () => {
    const tiny: CacheLevelConfig = { name: 'L1', size: 2048, assoc: 2, lineSize: 64, policy: 'lru' }
    const p = computeSetPadding([global('A', 0), global('B', 4096), global('C', 8192)], tiny)
    expect(p).toMatchObject({ spacing: 320, filters: [{ variable: 'B', bytes: 320 }, { variable: 'C', bytes: 320 }] })
  })

  it('refuses heap data and single arrays, saying why', () => {
    const heap: VariableInfo = { ...global('buf', 0), kind: 'heap' }
    expect(computeSetPadding([global('A', 0), heap], L1)).toEqual({ reason: 'buf is not a global with a known address, and layout filters only move globals' })
    expect(computeSetPadding([global('A', 0)], L1)).toMatchObject({ reason: expect.stringMatching(/single data structure/) })
  })
})
