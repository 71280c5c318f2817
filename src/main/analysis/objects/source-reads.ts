/**
 * The static model Rutar's attribution needs (section 3.1: "for the variables, we record the
 * line number information for each read ... we can record the line numbers within every loop"),
 * from a C/C++ file parsed with tree-sitter's C grammar (the parser is correlate's).
 * `modelFromTree` is pure over the syntax tree.
 *
 * A read is an array element, field or dereference read (`x[a]`, `p->next`, `*q`: keyed by
 * its text, so `x[a]` and `x[b]` are distinct) or a declared variable read as a value (`a`
 * in `x[a]`, `a++`, `s += ...`). Not reads: plain `=` targets, `&v`, declarations, calls'
 * function names, macros and constants (identifiers never declared in the file).
 */
import { readFile } from 'node:fs/promises'
import type { Node as SyntaxNode } from 'web-tree-sitter'
import { baseIdentifier, cParser, roleOf } from '../../correlate/source-expressions'
import type { FileModel, LoopSpan, ReadKey } from './approx-attribution'

const ACCESS = new Set(['subscript_expression', 'field_expression'])
const LOOPS = new Set(['for_statement', 'while_statement', 'do_statement'])
const DECLARATORS = new Set(['init_declarator', 'parameter_declaration', 'array_declarator', 'pointer_declarator'])
const NOT_CODE = new Set(['{', '}', 'comment'])

function declaredName(declarator: SyntaxNode | null): string | null {
  let d = declarator
  while (d && d.type !== 'identifier') {
    if (d.type === 'function_declarator') return null
    d = d.childForFieldName('declarator')
  }
  return d?.text ?? null
}

/** Every name declared as a variable or parameter anywhere in the file. */
function declaredVariables(root: SyntaxNode): Set<string> {
  const out = new Set<string>()
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'declaration' || n.type === 'parameter_declaration' || n.type === 'field_declaration') {
      for (const d of n.childrenForFieldName('declarator')) {
        const name = d && n.type !== 'field_declaration' ? declaredName(d) : null
        if (name) out.add(name)
      }
    }
    for (const c of n.namedChildren) if (c) visit(c)
  }
  visit(root)
  return out
}

function isDeref(n: SyntaxNode): boolean {
  return n.type === 'pointer_expression' && n.childForFieldName('operator')?.text === '*'
}

export function modelFromTree(root: SyntaxNode): FileModel {
  const variables = declaredVariables(root)
  const reads = new Map<number, ReadKey[]>()
  const add = (line: number, variable: string, key: string): void => {
    const list = reads.get(line) ?? []
    if (!list.some((r) => r.key === key)) list.push({ variable, key })
    reads.set(line, list)
  }
  const loops: LoopSpan[] = []
  const codeLines = new Set<number>()

  const visit = (n: SyntaxNode, underAddressOf: boolean): void => {
    const line = n.startPosition.row + 1
    if (n.childCount === 0 && !NOT_CODE.has(n.type)) codeLines.add(line)
    if (LOOPS.has(n.type)) loops.push({ start: line, end: n.endPosition.row + 1 })
    const addressOf = n.type === 'pointer_expression' && n.childForFieldName('operator')?.text === '&'
    const parent = n.parent
    // The outermost of a[i][j] is the access; inner a[i] is address arithmetic.
    const innerOfChain = parent !== null && (ACCESS.has(parent.type) || isDeref(parent)) && parent.childForFieldName('argument')?.id === n.id
    if ((ACCESS.has(n.type) || isDeref(n)) && !innerOfChain) {
      const base = baseIdentifier(n)
      if (base && !underAddressOf && roleOf(n) !== 'write') add(line, base, n.text.replace(/\s+/g, ''))
    } else if (n.type === 'identifier' && variables.has(n.text) && !underAddressOf && !innerOfChain) {
      const p = parent?.type
      const declarator = p === 'declaration' || (DECLARATORS.has(p ?? '') && parent!.childForFieldName('declarator')?.id === n.id)
      const called = p === 'call_expression' && parent!.childForFieldName('function')?.id === n.id
      if (!declarator && !called && roleOf(n) !== 'write') add(line, n.text, n.text)
    }
    for (const c of n.namedChildren) {
      if (!c) continue
      // Under &, indexes are still read: &A[ind[i]] reads ind[i].
      const isIndex = n.type === 'subscript_expression' && n.childForFieldName('index')?.id === c.id
      visit(c, (underAddressOf || addressOf) && !isIndex)
    }
    // Leaves that are not named nodes (keywords, operators) still make a line code.
    for (const c of n.children) if (c && !c.isNamed && !NOT_CODE.has(c.type)) codeLines.add(c.startPosition.row + 1)
  }
  visit(root, false)
  return { reads, loops, codeLines: [...codeLines].sort((a, b) => a - b) }
}

/** Parses a C/C++ source file; null when the grammar is not installed or the file is unreadable. */
export async function modelFromFile(path: string): Promise<FileModel | null> {
  const parser = await cParser()
  if (!parser) return null
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return null
  }
  const tree = parser.parse(text)
  return tree ? modelFromTree(tree.rootNode) : null
}
