/**
 * The code the run touched as a tree: files, their functions, and each function's loops (one
 * entry per loop header, nested as the loops are: `logic/loop-nests.ts`), with misses at a
 * level (a loop's include its inner loops') and the line to open at (the hottest one).
 */
import type { LoopInfo, RunReport } from '../../shared/domain'
import { computeLoopNests, type LoopNest } from './loop-nests'
import { computeReferenceRows } from './references'

export interface CodeNode {
  kind: 'file' | 'function' | 'loop'
  /** Display name: file base name, function name, or `loop@line` (`loop@file:line` for a header in another file). */
  name: string
  file: string
  misses: number
  accesses: number
  /** Where clicking the node goes: its hottest line (or first line with accesses). */
  line: number | null
  children: CodeNode[]
}

interface Acc {
  misses: number
  accesses: number
  lines: Map<number, number>
}

const acc = (): Acc => ({ misses: 0, accesses: 0, lines: new Map() })
function add(a: Acc, line: number, misses: number, accesses: number) {
  a.misses += misses
  a.accesses += accesses
  a.lines.set(line, (a.lines.get(line) ?? 0) + misses)
}
/** The line with most misses; ties (and all-zero) go to the first line. */
function hottest(a: Acc): number | null {
  let best: number | null = null
  let most = -1
  for (const [line, m] of [...a.lines].sort((x, y) => x[0] - y[0]))
    if (m > most) {
      most = m
      best = line
    }
  return best
}

const byMisses = (a: CodeNode, b: CodeNode) => b.misses - a.misses || b.accesses - a.accesses || a.name.localeCompare(b.name)

export function computeCodeTree(report: RunReport, level: string): CodeNode[] {
  const files = new Map<string, { all: Acc; fns: Map<string, { all: Acc; loops: Map<number, Acc> }> }>()
  const loopOf = new Map<string, number>()
  for (const l of report.loops ?? []) for (const r of l.references) loopOf.set(r, l.id)
  for (const r of computeReferenceRows(report, level)) {
    if (r.file === null || r.line === null) continue
    const f = files.get(r.file) ?? { all: acc(), fns: new Map() }
    files.set(r.file, f)
    const name = r.function ?? '(unknown function)'
    const fn = f.fns.get(name) ?? { all: acc(), loops: new Map() }
    f.fns.set(name, fn)
    const accesses = r.reads + r.writes
    add(f.all, r.line, r.misses, accesses)
    add(fn.all, r.line, r.misses, accesses)
    const loop = loopOf.get(r.id)
    if (loop !== undefined) {
      const la = fn.loops.get(loop) ?? acc()
      fn.loops.set(loop, la)
      add(la, r.line, r.misses, accesses)
    }
  }
  const short = (p: string) => p.split(/[\\/]/).pop() ?? p
  const loops = report.loops ?? []
  return [...files]
    .map(([file, f]) => ({
      kind: 'file' as const,
      name: short(file),
      file,
      misses: f.all.misses,
      accesses: f.all.accesses,
      line: hottest(f.all),
      children: [...f.fns]
        .map(([name, fn]) => ({
          kind: 'function' as const,
          name,
          file,
          misses: fn.all.misses,
          accesses: fn.all.accesses,
          line: hottest(fn.all),
          children: loopNodes(loops, name, file, fn.loops)
        }))
        .sort(byMisses)
    }))
    .sort(byMisses)
}

/** A function's loop headers (those with accesses, in or under this file's node), by misses. */
function loopNodes(loops: readonly LoopInfo[], fn: string, file: string, perLoop: Map<number, Acc>): CodeNode[] {
  if (perLoop.size === 0) return []
  const short = (p: string) => p.split(/[\\/]/).pop() ?? p
  const node = (n: LoopNest): CodeNode | null => {
    const a = acc()
    for (const id of n.ids) {
      const own = perLoop.get(id)
      if (!own) continue
      a.misses += own.misses
      a.accesses += own.accesses
      for (const [line, m] of own.lines) a.lines.set(line, (a.lines.get(line) ?? 0) + m)
    }
    const children = n.children.map(node).filter((c): c is CodeNode => c !== null)
    for (const c of children) {
      a.misses += c.misses
      a.accesses += c.accesses
    }
    if (a.accesses === 0 && children.length === 0) return null
    const own = hottest(a)
    return {
      kind: 'loop',
      name: n.file === file ? `loop@${n.line}` : `loop@${short(n.file)}:${n.line}`,
      file,
      misses: a.misses,
      accesses: a.accesses,
      line: own ?? children[0]?.line ?? null,
      children: children.sort(byMisses)
    }
  }
  // A nest whose outer header is in another file (inlined) is listed under the file of its accesses.
  return computeLoopNests(loops, fn)
    .map(node)
    .filter((c): c is CodeNode => c !== null)
    .sort(byMisses)
}
