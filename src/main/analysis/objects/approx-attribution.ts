/**
 * Rutar & Hollingsworth section 3.3: attributing misses to variables from instruction
 * samples alone (a source line per sample, no data address), over a static model of the
 * source (which variables each line reads, and the loops).
 * - Raw (3.3.1): a line's misses split equally over its unique reads. `x[a]` reads x and a;
 *   `x[b] + x[b]` reads x[b] once.
 * - Loop compensation (3.3.2, equations 1-5): in the innermost loop L around the line, each
 *   read r gets raw weight 1 - (lines of L reading r / lines of L)^2; the weight lost,
 *   sum(1 - raw), is handed to the reads at or above `threshold` in proportion to their raw
 *   weight. A read's share of a miss is multiplied by its final weight: loop indices read on
 *   every line lose their inflated share to the arrays they index.
 * - Skid negation (3.3.3, equations 6-8): a sample reported on line S may come from the lines
 *   around it; each read on each candidate line gets the probability of its line, normalized
 *   over all of them, replacing the raw split. Loop compensation then applies on top.
 * Everything here is per source file and pure: lines are that file's line numbers.
 */

/** One unique read of a line: `key` tells accesses apart (`x[a]` and `x[b]` are two). */
export interface ReadKey {
  variable: string
  key: string
}

/** A loop statement's lines, inclusive. */
export interface LoopSpan {
  start: number
  end: number
}

export interface FileModel {
  /** Unique reads per line. */
  reads: Map<number, ReadKey[]>
  loops: LoopSpan[]
  /** Lines holding code (not blank, comment or brace only), ascending. */
  codeLines: number[]
}

/** Misses (or miss samples) of one variable access on one line. */
export interface Cell {
  line: number
  variable: string
  key: string
  value: number
}

export interface LoopWeight {
  variable: string
  raw: number
  adjusted: number
  final: number
}

/** Rutar's default threshold: a read on half of the loop's lines has raw weight 0.75. */
export const DEFAULT_LOOP_THRESHOLD = 0.75

/**
 * The model with only the reads of `variables` kept: those the debug information places in
 * memory. A local the compiler keeps in a register is never loaded (Rutar reads loads from
 * LLVM IR, where such a local is an SSA value), so it must not take a share of a line's misses.
 */
export function restrictReads(model: FileModel, variables: Set<string>): FileModel {
  const reads = new Map<number, ReadKey[]>()
  for (const [line, list] of model.reads) {
    const kept = list.filter((r) => variables.has(r.variable))
    if (kept.length > 0) reads.set(line, kept)
  }
  return { ...model, reads }
}

/** Raw assignment: each line's misses split equally over its unique reads. */
export function rawAssignment(model: FileModel, lineMisses: Map<number, number>): Cell[] {
  const out: Cell[] = []
  for (const [line, misses] of lineMisses) {
    const reads = model.reads.get(line) ?? []
    for (const r of reads) out.push({ line, variable: r.variable, key: r.key, value: misses / reads.length })
  }
  return out
}

/** The innermost loop containing `line`, or null. */
export function innermostLoop(model: FileModel, line: number): LoopSpan | null {
  let best: LoopSpan | null = null
  for (const l of model.loops) if (line >= l.start && line <= l.end && (!best || l.end - l.start < best.end - best.start)) best = l
  return best
}

/** Equations 1-5 for one loop: every read on its lines, keyed by `ReadKey.key`. */
export function loopWeights(model: FileModel, loop: LoopSpan, threshold = DEFAULT_LOOP_THRESHOLD): Map<string, LoopWeight> {
  const lines = model.codeLines.filter((l) => l >= loop.start && l <= loop.end)
  const readIn = new Map<string, { variable: string; lines: number }>()
  for (const line of lines)
    for (const r of model.reads.get(line) ?? []) {
      const e = readIn.get(r.key) ?? { variable: r.variable, lines: 0 }
      e.lines++
      readIn.set(r.key, e)
    }
  const out = new Map<string, LoopWeight>()
  let redistribute = 0 // equation 2
  let thresholdWeights = 0 // equation 3
  for (const [key, e] of readIn) {
    const raw = 1 - (e.lines / lines.length) ** 2 // equation 1
    redistribute += 1 - raw
    if (raw >= threshold) thresholdWeights += raw
    out.set(key, { variable: e.variable, raw, adjusted: 0, final: raw })
  }
  for (const w of out.values())
    if (w.raw >= threshold && thresholdWeights > 0) {
      w.adjusted = (w.raw / thresholdWeights) * redistribute // equation 4
      w.final = w.raw + w.adjusted // equation 5
    }
  return out
}

/** Loop compensation of an attribution: each cell times its read's final weight in its innermost loop. */
export function loopAdjust(model: FileModel, cells: Cell[], threshold = DEFAULT_LOOP_THRESHOLD): Cell[] {
  const cache = new Map<LoopSpan, Map<string, LoopWeight>>()
  return cells.map((c) => {
    const loop = innermostLoop(model, c.line)
    if (!loop) return c
    let weights = cache.get(loop)
    if (!weights) cache.set(loop, (weights = loopWeights(model, loop, threshold)))
    return { ...c, value: c.value * (weights.get(c.key)?.final ?? 1) }
  })
}

/** Where a sample reported on a line may really come from: offsets in code lines, with probabilities. */
export type SkidDistribution = Array<{ offset: number; p: number }>

/** Rutar 4: three source lines, mean one line before the reported one, .25 / .5 / .25. */
export const RUTAR_SKID: SkidDistribution = [
  { offset: -2, p: 0.25 },
  { offset: -1, p: 0.5 },
  { offset: 0, p: 0.25 }
]

/**
 * A discretized Gaussian over code-line offsets (mean and standard deviation in lines),
 * covering mean +- 2 sigma, normalized.
 */
export function gaussianSkid(mean: number, sigma: number): SkidDistribution {
  if (!(sigma > 0)) return [{ offset: Math.round(mean), p: 1 }]
  const lo = Math.round(mean - 2 * sigma)
  const hi = Math.round(mean + 2 * sigma)
  const out: SkidDistribution = []
  for (let d = lo; d <= hi; d++) out.push({ offset: d, p: Math.exp(-((d - mean) ** 2) / (2 * sigma * sigma)) })
  const sum = out.reduce((s, x) => s + x.p, 0)
  return out.map((x) => ({ offset: x.offset, p: x.p / sum }))
}

/** The code line `steps` code lines away from `line` (null past either end of the file). */
export function stepLines(model: FileModel, line: number, steps: number): number | null {
  let i = model.codeLines.indexOf(line)
  if (i < 0) {
    // A sample on a line the model does not list as code: start from the nearest one before.
    i = model.codeLines.findIndex((l) => l > line) - 1
    if (i < 0) i = model.codeLines.length - 1
  }
  return model.codeLines[i + steps] ?? null
}

/** Equations 6-8: samples per reported line spread over the reads the skid window covers. */
export function skidNegate(model: FileModel, lineSamples: Map<number, number>, skid: SkidDistribution): Cell[] {
  const out: Cell[] = []
  for (const [reported, samples] of lineSamples) {
    const window: Cell[] = []
    let sum = 0 // equation 7
    for (const { offset, p } of skid) {
      const line = stepLines(model, reported, offset)
      if (line === null) continue
      for (const r of model.reads.get(line) ?? []) {
        window.push({ line, variable: r.variable, key: r.key, value: p }) // equation 6
        sum += p
      }
    }
    if (sum > 0) for (const c of window) out.push({ ...c, value: (c.value / sum) * samples }) // equation 8
  }
  return out
}

/** Per variable totals, largest first. */
export function sumByVariable(cells: Cell[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const c of cells) out.set(c.variable, (out.get(c.variable) ?? 0) + c.value)
  return new Map([...out].sort((a, b) => b[1] - a[1]))
}
