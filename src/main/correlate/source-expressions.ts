/**
 * The expression an access point evaluates, recovered from its source line with tree-sitter's
 * C grammar (METRIC's SourceRef: `B[j][i]`, `C[ind[j]]`, `p->next`). Best effort: the caller
 * falls back to the plain line. Parsing is the adapter; `collectAccesses` and
 * `matchExpressions` are pure over the syntax tree and plain data.
 */
import { setFlagsFromString } from 'node:v8'
import { join } from 'node:path'
import type { Node as SyntaxNode, Parser as TsParser } from 'web-tree-sitter'
import { projectRoot } from '../paths'

export type ExprRole = 'read' | 'write' | 'update'

export interface AccessExpr {
  text: string
  /** Leftmost identifier (the array, pointer or struct the access goes through). */
  base: string | null
  /** What the access indexes or dereferences: `t->buckets` in `t->buckets[h]`, `A` in `A[i][j]`, `p` in `p->next`. */
  container?: string
  role: ExprRole
}

/** The expression an access reads into: a subscript's array (all dimensions), a field's or a dereference's pointer. */
function containerOf(node: SyntaxNode): string | undefined {
  let n: SyntaxNode | null = node.childForFieldName('argument')
  while (n && n.type === 'subscript_expression') n = n.childForFieldName('argument')
  return n?.text
}

/** The leftmost identifier an access goes through (`A` in `A[i][j]`, `p` in `p->next`). */
export function baseIdentifier(node: SyntaxNode): string | null {
  let n: SyntaxNode | null = node
  while (n) {
    if (n.type === 'identifier') return n.text
    n = n.childForFieldName('argument') ?? n.namedChild(0)
  }
  return null
}

/** Whether an expression is read, assigned with `=`, or updated (`+=`, `++`). */
export function roleOf(node: SyntaxNode): ExprRole {
  let child = node
  let parent = node.parent
  // Parentheses do not change the role.
  while (parent && parent.type === 'parenthesized_expression') {
    child = parent
    parent = parent.parent
  }
  if (parent?.type === 'assignment_expression' && parent.childForFieldName('left')?.id === child.id) {
    return parent.childForFieldName('operator')?.text === '=' ? 'write' : 'update'
  }
  if (parent?.type === 'update_expression') return 'update'
  return 'read'
}

/** Memory-access expressions of a statement, in source order (outer before the indexes inside). */
export function collectAccesses(root: SyntaxNode): AccessExpr[] {
  const out: AccessExpr[] = []
  const visit = (node: SyntaxNode, insideAddressOf: boolean): void => {
    const isDeref = node.type === 'pointer_expression' && node.childForFieldName('operator')?.text === '*'
    const isAccess = node.type === 'subscript_expression' || node.type === 'field_expression' || isDeref
    // `&A[i]` computes an address and touches no memory; a[i][j]'s inner a[i] is address arithmetic.
    const addressOf = node.type === 'pointer_expression' && node.childForFieldName('operator')?.text === '&'
    const innerOfMultiDim = node.type === 'subscript_expression' && node.parent?.type === 'subscript_expression' && node.parent.childForFieldName('argument')?.id === node.id
    if (isAccess && !insideAddressOf && !innerOfMultiDim) out.push({ text: node.text, base: baseIdentifier(node), container: containerOf(node), role: roleOf(node) })
    for (const child of node.namedChildren) {
      if (!child) continue
      // Under &, indexes are still read: &A[ind[i]] reads ind[i], not A.
      const isIndex = node.type === 'subscript_expression' && node.childForFieldName('index')?.id === child.id
      visit(child, (insideAddressOf || addressOf) && !isIndex)
    }
  }
  visit(root, false)
  return out
}

export interface LinePoint {
  /** Caller's handle (e.g. the point index). */
  key: number
  kind: 'read' | 'write' | 'modify'
  /** The data structure the point's accesses fell in, when known. */
  variable: string | null
}

function compatible(kind: LinePoint['kind'], role: ExprRole): boolean {
  if (kind === 'read') return role === 'read' || role === 'update'
  if (kind === 'write') return role === 'write' || role === 'update'
  return true
}

/**
 * Pairs the access points of one line (in instruction order) with its expressions: first by
 * the variable the point touched (`C_Read` -> `C[ind[j]]`), then, for accesses through
 * parameters (`S1[i]` reaching global A), by order among the expressions left.
 */
export function matchExpressions(points: LinePoint[], exprs: AccessExpr[]): Map<number, string> {
  const out = new Map<number, string>()
  const used = { read: new Set<number>(), write: new Set<number>(), modify: new Set<number>() }
  const named = new Set(points.map((p) => p.variable).filter((v): v is string => Boolean(v)))
  const pick = (p: LinePoint, ok: (e: AccessExpr) => boolean): number => {
    const candidates = exprs.map((e, i) => [e, i] as const).filter(([e]) => compatible(p.kind, e.role) && ok(e))
    const fresh = candidates.find(([, i]) => !used[p.kind].has(i))
    return (fresh ?? candidates[0])?.[1] ?? -1
  }
  // Pass 0: the expression that indexes or dereferences the variable itself (variable `t`:
  // `t->buckets`, not `t->buckets[h]`, which belongs to the block named `t->buckets`).
  for (const p of points) {
    if (!p.variable) continue
    const i = pick(p, (e) => e.container === p.variable)
    if (i >= 0) {
      used[p.kind].add(i)
      out.set(p.key, exprs[i]!.text)
    }
  }
  // Pass 1: expressions whose base is the variable itself.
  for (const p of points) {
    if (out.has(p.key)) continue
    if (!p.variable) continue
    const i = pick(p, (e) => e.base === p.variable)
    if (i >= 0) {
      used[p.kind].add(i)
      out.set(p.key, exprs[i]!.text)
    }
  }
  // Pass 2: the rest, in order, over expressions not naming another point's variable.
  for (const p of points) {
    if (out.has(p.key)) continue
    const i = pick(p, (e) => !e.base || !named.has(e.base))
    if (i >= 0) {
      used[p.kind].add(i)
      out.set(p.key, exprs[i]!.text)
    }
  }
  return out
}

/** The identifier a declarator declares, through `*p`, `(*A)[N]`, `a[10]` and `f(...)` wrappers. */
function declaredIdentifier(node: SyntaxNode | null): string | null {
  let d = node
  while (d && d.type !== 'identifier') d = d.childForFieldName('declarator') ?? d.namedChildren.find((c) => c?.type.endsWith('declarator') || c?.type === 'identifier') ?? null
  return d?.text ?? null
}

/**
 * What each call on a line hands its result to, in the order the calls run: the declared name
 * (`double (*A)[N] = malloc(...), (*B)[N] = malloc(...)` gives A then B), the assigned
 * variable (`p->buf = xmalloc(n)` gives `p->buf`), or posix_memalign's `&p`. Calls whose result
 * nobody keeps (arguments of other calls, `use(malloc(8))`) are left out.
 */
export function assignedTargets(root: SyntaxNode): string[] {
  const out: string[] = []
  const visit = (node: SyntaxNode): void => {
    // Arguments run before their call: visit children first.
    for (const child of node.namedChildren) if (child) visit(child)
    if (node.type !== 'call_expression') return
    const fn = node.childForFieldName('function')?.text ?? ''
    if (fn === 'posix_memalign') {
      const first = node.childForFieldName('arguments')?.namedChild(0)
      const target = first?.type === 'pointer_expression' && first.childForFieldName('operator')?.text === '&' ? first.childForFieldName('argument')?.text : null
      if (target) out.push(target)
      return
    }
    let p = node.parent
    while (p && (p.type === 'cast_expression' || p.type === 'parenthesized_expression')) p = p.parent
    const target = p?.type === 'init_declarator' ? declaredIdentifier(p.childForFieldName('declarator')) : p?.type === 'assignment_expression' ? (p.childForFieldName('left')?.text ?? null) : null
    if (target) out.push(target)
  }
  visit(root)
  return out
}

/**
 * C++ lines the C grammar cannot read, where library code (operator new inside std::vector,
 * std::unordered_map) allocated on the line's behalf: `p = new T`, `std::vector<T> v(n)`,
 * `v.push_back(x)`, `m[k] = x`. The object the line names owns the block.
 */
export function cppOwnerName(text: string): string | null {
  const code = text.replace(/\/\/.*$/, '')
  // A C allocator's line is the C rules' (the declarator or assignment its call's result goes to).
  const cAllocation = /\b(?:malloc|calloc|realloc|aligned_alloc|posix_memalign|strdup|strndup)\s*\(/.test(code)
  const patterns = [
    /([A-Za-z_][\w.>-]*)\s*=\s*new\b/, // p = new T(...), auto *p = new T
    // The declared object a call's result initializes (std::string input = read(opts.path.c_str())),
    // before the objects the call's arguments name.
    ...(cAllocation ? [] : [/^\s*(?:const\s+)?[A-Za-z_][\w:]*(?:<.*>)?[\s*&]+([A-Za-z_]\w*)\s*=(?!=)/]),
    /^\s*(?:const\s+)?[A-Za-z_][\w:]*(?:<.*>)?[\s*&]+([A-Za-z_]\w*)\s*[({]/, // std::vector<T> v(n);
    /([A-Za-z_]\w*)\s*(?:(?:\.|->)\s*[A-Za-z_]\w*\s*\(|\[)/ // v.push_back(x); for (...) m[k] = x
  ]
  for (const re of patterns) {
    const m = re.exec(code)
    if (m && !/^(return|if|while|for|switch|delete|new|sizeof)$/.test(m[1]!)) return m[1]!
  }
  return null
}

let parser: Promise<TsParser | null> | null = null

/** A line with what the naming meets most: subscripts, members, pointers, calls, casts, assignments. */
const WARM_UP_LINE = 'for (i = 0; i < n; i++) a[i][j] += (double)b->c[k] * f(&x, *p++, 1.5e0);'

/** The C parser, loaded once; null if the grammar is not installed (callers fall back). */
export function cParser(): Promise<TsParser | null> {
  parser ??= (async () => {
    try {
      // The grammar is 600 KB of WebAssembly. V8 tiers its hot functions (the generated lexer
      // is one huge function) up to TurboFan in the background: about 0.3 s of CPU per process,
      // competing with Valgrind on a 2-core machine, to parse a few dozen lines. The baseline
      // compiler's code parses them as fast (the flag is process-wide; this is our only
      // WebAssembly).
      setFlagsFromString('--liftoff-only')
      const { Parser, Language } = await import('web-tree-sitter')
      await Parser.init()
      // A missing grammar makes Language.load throw: the catch below falls back.
      const wasm = join(projectRoot(), 'node_modules', 'tree-sitter-c', 'tree-sitter-c.wasm')
      const p = new Parser()
      p.setLanguage(await Language.load(wasm))
      // The first parse compiles the parser's and the grammar's functions (lazily, ~30 ms
      // here): done now, while the traced program runs (the trace worker loads the parser
      // then), instead of in the naming after it, where the trace waits for it.
      p.parse(WARM_UP_LINE)?.delete()
      return p
    } catch {
      return null
    }
  })()
  return parser
}

/** Parses one line of C (statements and declarations alike). */
export async function parseLine(text: string): Promise<SyntaxNode | null> {
  const p = await cParser()
  return p?.parse(text)?.rootNode ?? null
}
