/**
 * Which two loops a transform names, from the source: FILE:LINE is the line of the outer
 * loop's header (`for`, `while`, `do`), or a line inside the innermost loop of the nest (what
 * the Advisor gives: a reference's line), which names the loop around that innermost loop.
 * Source lines, not the binary's loops: at -O1 and above a rotated loop's header instruction
 * carries a body line, and several loops of one nest share it.
 * `nestInTree` is pure over the syntax tree; `nestInFile` parses the file (tree-sitter's C grammar).
 */
import { readFile } from 'node:fs/promises'
import type { Node as SyntaxNode } from 'web-tree-sitter'
import { cParser } from '../../correlate/source-expressions'

const LOOPS = new Set(['for_statement', 'while_statement', 'do_statement'])

export interface LineSpan {
  start: number
  end: number
}

/** The outer loop and the one loop directly inside it (1-based inclusive lines), or why not. */
export type SourceNest = { outer: LineSpan; inner: LineSpan } | { refused: string }

interface LoopNode {
  span: LineSpan
  children: LoopNode[]
}

function loopTree(root: SyntaxNode): LoopNode[] {
  const top: LoopNode[] = []
  const visit = (n: SyntaxNode, into: LoopNode[]): void => {
    let next = into
    if (LOOPS.has(n.type)) {
      const node: LoopNode = { span: { start: n.startPosition.row + 1, end: n.endPosition.row + 1 }, children: [] }
      into.push(node)
      next = node.children
    }
    for (const c of n.namedChildren) if (c) visit(c, next)
  }
  visit(root, top)
  return top
}

const at = (s: LineSpan) => (s.start === s.end ? `line ${s.start}` : `lines ${s.start}-${s.end}`)

export function nestInTree(root: SyntaxNode, line: number): SourceNest {
  const all: Array<{ node: LoopNode; parent: LoopNode | null }> = []
  const walk = (list: LoopNode[], parent: LoopNode | null): void => {
    for (const node of list) {
      all.push({ node, parent })
      walk(node.children, node)
    }
  }
  walk(loopTree(root), null)
  // A header on the line: the outermost loop starting there.
  let outer = all.find((l) => l.node.span.start === line)?.node
  if (!outer) {
    const holding = all.filter((l) => l.node.span.start <= line && line <= l.node.span.end)
    if (holding.length === 0) return { refused: `no loop is on or around line ${line}` }
    const innermost = holding[holding.length - 1]!
    if (innermost.node.children.length > 0) return { refused: `line ${line} is in a loop (${at(innermost.node.span)}) that holds other loops; give the outer loop's header line` }
    if (!innermost.parent) return { refused: `the loop around line ${line} (${at(innermost.node.span)}) has no loop around it to swap it with` }
    outer = innermost.parent
  }
  if (outer.children.length === 0) return { refused: `the loop at ${at(outer.span)} has no loop inside it` }
  if (outer.children.length > 1) return { refused: `the loop at ${at(outer.span)} holds ${outer.children.length} loops one after another (${outer.children.map((c) => at(c.span)).join(', ')}), not one nest` }
  const inner = outer.children[0]!
  if (inner.children.length > 0) return { refused: `its inner loop (${at(inner.span)}) holds loops itself; only a loop and an innermost loop directly inside it can be transformed` }
  return { outer: outer.span, inner: inner.span }
}

export async function nestInFile(path: string, line: number): Promise<SourceNest> {
  const parser = await cParser()
  if (!parser) return { refused: "the C grammar (tree-sitter-c) is not installed, so the loop nest cannot be read from the source" }
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return { refused: `its source ${path} cannot be read (the transform finds the loops in the source)` }
  }
  const tree = parser.parse(text)
  if (!tree) return { refused: `its source ${path} could not be parsed` }
  try {
    return nestInTree(tree.rootNode, line)
  } finally {
    tree.delete()
  }
}
