/**
 * SEQUITUR (Nevill-Manning & Witten 1997): turns a sequence of symbols (here: access point
 * indices in execution order, METRIC section 3.1) into a context-free grammar in linear time,
 * keeping two invariants: no digram appears twice (digram uniqueness) and every rule is used
 * at least twice (rule utility).
 *
 * This is the reference algorithm (sequitur.cc) laid out in typed arrays so appending a
 * symbol allocates nothing: symbols are nodes of doubly linked lists in a pool (`next`,
 * `prev`, `value`), each rule is a circular list through its guard node, and the digram index
 * is an open-addressing hash table (linear probing, backward-shift deletion) from the pair
 * of values to the node that starts the digram.
 *
 * Values: a terminal t >= 0 is t; a non-terminal for rule r is -(r + 1); the guard of rule r
 * has the value GUARD_BASE - r, which never equals any symbol's value.
 */
import type { ByteReader, ByteWriter } from './bytes'

const NIL = -1
const GUARD_BASE = -0x40000000

/**
 * The longest order a chunk's grammar is built for (the native codec's SEQUITUR_LONGEST_ORDER,
 * sequitur.h). A loop kernel's chunk, folded, is an order of tens of symbols (its start-up's,
 * thousands); an irregular program's is 8,000-100,000 (the corpus, 256 K-access chunks). A
 * longer order is written as it is, one rule (writeOrder): brotli, whose window holds the
 * whole chunk, finds the repeats SEQUITUR would (the corpus's stored structures came out within
 * -4% and +10%), where building the grammar was 15-35% of the first stage.
 */
export const SEQUITUR_LONGEST_ORDER = 4096

/**
 * Writes `order` (its first `length` symbols) as writeGrammar does: as its SEQUITUR grammar, built
 * in `sequitur` (reset), up to SEQUITUR_LONGEST_ORDER symbols; longer, as one rule, S, the
 * order itself. Returns the rules written.
 */
export function writeOrder(out: ByteWriter, order: Int32Array, length: number, sequitur: Sequitur): number {
  if (length > SEQUITUR_LONGEST_ORDER) {
    out.uint(1)
    out.uint(length)
    for (let i = 0; i < length; i++) out.uint(2 * order[i]!)
    return 1
  }
  for (let i = 0; i < length; i++) sequitur.append(order[i]!)
  sequitur.writeGrammar(out)
  return sequitur.ruleCount()
}

export class Sequitur {
  private next: Int32Array
  private prev: Int32Array
  private value: Int32Array
  /** rule + 1 for a guard node, 0 otherwise. */
  private guardOf: Int32Array
  private freeNodes: Int32Array
  private freeNodeCount = 0
  private nodeTop = 0

  private ruleGuard: Int32Array
  private ruleRefs: Int32Array
  private freeRules: Int32Array
  private freeRuleCount = 0
  private ruleTop = 0

  private keyA: Int32Array
  private keyB: Int32Array
  private slot: Int32Array
  private mask: number

  /** Symbols appended so far. */
  length = 0

  /** `capacity`: the most symbols one grammar will be fed (a chunk's event count). */
  constructor(readonly capacity: number) {
    const nodes = 2 * capacity + 16
    this.next = new Int32Array(nodes)
    this.prev = new Int32Array(nodes)
    this.value = new Int32Array(nodes)
    this.guardOf = new Int32Array(nodes)
    this.freeNodes = new Int32Array(nodes)
    const rules = capacity + 2
    this.ruleGuard = new Int32Array(rules)
    this.ruleRefs = new Int32Array(rules)
    this.freeRules = new Int32Array(rules)
    let size = 1024
    while (size < 2 * nodes) size *= 2 // digrams in the index <= nodes: load <= 1/2
    this.keyA = new Int32Array(size)
    this.keyB = new Int32Array(size)
    this.slot = new Int32Array(size).fill(NIL)
    this.mask = size - 1
    this.reset()
  }

  /** Forgets everything: the next symbol starts a new grammar. */
  reset(): void {
    this.nodeTop = 0
    this.freeNodeCount = 0
    this.ruleTop = 0
    this.freeRuleCount = 0
    this.length = 0
    this.slot.fill(NIL)
    this.newRule() // rule 0 is S
  }

  append(terminal: number): void {
    if (this.length >= this.capacity) throw new Error(`SEQUITUR grammar is full (${this.capacity} symbols)`)
    const y = this.newSymbol(terminal)
    const guard = this.ruleGuard[0]!
    this.insertAfter(this.prev[guard]!, y)
    this.length++
    this.check(this.prev[y]!)
  }

  // ---- nodes and rules ----

  private newNode(): number {
    if (this.freeNodeCount > 0) return this.freeNodes[--this.freeNodeCount]!
    return this.nodeTop++
  }

  private newSymbol(v: number): number {
    const n = this.newNode()
    this.value[n] = v
    this.next[n] = NIL
    this.prev[n] = NIL
    this.guardOf[n] = 0
    if (v < 0) this.ruleRefs[-v - 1]!++
    return n
  }

  private newRule(): number {
    const r = this.freeRuleCount > 0 ? this.freeRules[--this.freeRuleCount]! : this.ruleTop++
    const g = this.newNode()
    this.value[g] = GUARD_BASE - r
    this.guardOf[g] = r + 1
    this.next[g] = g
    this.prev[g] = g
    this.ruleGuard[r] = g
    this.ruleRefs[r] = 0
    return r
  }

  private freeRule(r: number): void {
    this.freeNodes[this.freeNodeCount++] = this.ruleGuard[r]!
    this.freeRules[this.freeRuleCount++] = r
  }

  private isGuard(n: number): boolean {
    return this.guardOf[n] !== 0
  }

  /** Unlinks a symbol (not a guard) and releases its node. */
  private deleteSymbol(n: number, deuse = true): void {
    this.join(this.prev[n]!, this.next[n]!)
    this.deleteDigram(n)
    const v = this.value[n]!
    if (deuse && v < 0) this.ruleRefs[-v - 1]!--
    this.freeNodes[this.freeNodeCount++] = n
  }

  // ---- the digram index ----

  private home(a: number, b: number): number {
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca6b)) & this.mask
  }

  /** Slot holding digram (a, b), or the empty slot where it would go. */
  private find(a: number, b: number): number {
    let i = this.home(a, b)
    for (;;) {
      if (this.slot[i] === NIL || (this.keyA[i] === a && this.keyB[i] === b)) return i
      i = (i + 1) & this.mask
    }
  }

  private findDigram(n: number): number {
    return this.slot[this.find(this.value[n]!, this.value[this.next[n]!]!)]!
  }

  private setDigram(n: number): void {
    const a = this.value[n]!
    const b = this.value[this.next[n]!]!
    const i = this.find(a, b)
    this.keyA[i] = a
    this.keyB[i] = b
    this.slot[i] = n
  }

  private deleteDigram(n: number): void {
    const nx = this.next[n]!
    if (nx === NIL || this.isGuard(n) || this.isGuard(nx)) return
    let i = this.find(this.value[n]!, this.value[nx]!)
    if (this.slot[i] !== n) return
    // Backward-shift deletion keeps probe chains intact without tombstones.
    const mask = this.mask
    let j = i
    for (;;) {
      j = (j + 1) & mask
      if (this.slot[j] === NIL) break
      const k = this.home(this.keyA[j]!, this.keyB[j]!)
      if (j > i ? k <= i || k > j : k <= i && k > j) {
        this.keyA[i] = this.keyA[j]!
        this.keyB[i] = this.keyB[j]!
        this.slot[i] = this.slot[j]!
        i = j
      }
    }
    this.slot[i] = NIL
  }

  // ---- the algorithm ----

  private join(left: number, right: number): void {
    if (this.next[left] !== NIL) {
      this.deleteDigram(left)
      // Triples (aaa): re-index the digram the overlap hid.
      const rp = this.prev[right]!
      const rn = this.next[right]!
      const v = this.value[right]!
      if (rp !== NIL && rn !== NIL && v === this.value[rp] && v === this.value[rn]) this.setDigram(right)
      const lp = this.prev[left]!
      const ln = this.next[left]!
      const u = this.value[left]!
      if (lp !== NIL && ln !== NIL && u === this.value[ln] && u === this.value[lp]) this.setDigram(lp)
    }
    this.next[left] = right
    this.prev[right] = left
  }

  private insertAfter(n: number, y: number): void {
    this.join(y, this.next[n]!)
    this.join(n, y)
  }

  /** Enforces digram uniqueness for the digram starting at n; true if it was seen before. */
  private check(n: number): boolean {
    const nx = this.next[n]!
    if (this.isGuard(n) || this.isGuard(nx)) return false
    const i = this.find(this.value[n]!, this.value[nx]!)
    const x = this.slot[i]!
    if (x === NIL) {
      this.keyA[i] = this.value[n]!
      this.keyB[i] = this.value[nx]!
      this.slot[i] = n
      return false
    }
    if (x === n) return false
    if (this.next[x] !== n) this.match(n, x) // overlapping digrams (aaa) are left alone
    return true
  }

  /** Replaces the digram at n by rule r. */
  private substitute(n: number, r: number): void {
    const q = this.prev[n]!
    this.deleteSymbol(this.next[q]!)
    this.deleteSymbol(this.next[q]!)
    this.insertAfter(q, this.newSymbol(-(r + 1)))
    if (!this.check(q)) this.check(this.next[q]!)
  }

  private match(ss: number, m: number): void {
    let r: number
    const mp = this.prev[m]!
    if (this.isGuard(mp) && this.isGuard(this.next[this.next[m]!]!)) {
      // The earlier occurrence is a whole rule: reuse it.
      r = this.guardOf[mp]! - 1
      this.substitute(ss, r)
    } else {
      r = this.newRule()
      const g = this.ruleGuard[r]!
      this.insertAfter(this.prev[g]!, this.newSymbol(this.value[ss]!))
      this.insertAfter(this.prev[g]!, this.newSymbol(this.value[this.next[ss]!]!))
      this.substitute(m, r)
      this.substitute(ss, r)
      this.setDigram(this.next[g]!)
    }
    // Rule utility: a rule whose first symbol is a rule used only here gets inlined.
    const first = this.next[this.ruleGuard[r]!]!
    const fv = this.value[first]!
    if (fv < 0 && fv > GUARD_BASE && this.ruleRefs[-fv - 1] === 1) this.expand(first)
  }

  /** Inlines the rule that non-terminal n refers to (its only use). */
  private expand(n: number): void {
    const left = this.prev[n]!
    const right = this.next[n]!
    const r = -this.value[n]! - 1
    const g = this.ruleGuard[r]!
    const f = this.next[g]!
    const l = this.prev[g]!
    this.freeRule(r)
    this.deleteDigram(n)
    this.deleteSymbol(n, false)
    this.join(left, f)
    this.join(l, right)
    if (!this.isGuard(right)) this.setDigram(l)
  }

  // ---- output ----

  /**
   * Writes the grammar: rule count, then each rule (S first, others renumbered in order of
   * first use) as its length and its symbols, a terminal t as 2t and rule k as 2k + 1.
   */
  writeGrammar(out: ByteWriter): void {
    const order: number[] = [0]
    const newId = new Map<number, number>([[0, 0]])
    const bodies: number[][] = []
    for (let k = 0; k < order.length; k++) {
      const r = order[k]!
      const g = this.ruleGuard[r]!
      const body: number[] = []
      for (let n = this.next[g]!; n !== g; n = this.next[n]!) {
        const v = this.value[n]!
        if (v >= 0) body.push(2 * v)
        else {
          const target = -v - 1
          let id = newId.get(target)
          if (id === undefined) {
            id = order.length
            newId.set(target, id)
            order.push(target)
          }
          body.push(2 * id + 1)
        }
      }
      bodies.push(body)
    }
    out.uint(bodies.length)
    for (const body of bodies) {
      out.uint(body.length)
      for (const s of body) out.uint(s)
    }
  }

  /** Rules in use, S included (for tests and statistics). */
  ruleCount(): number {
    return this.ruleTop - this.freeRuleCount
  }
}

/** A grammar read back: rule bodies in the encoded form (2t terminal, 2k+1 rule k). */
export interface Grammar {
  starts: Uint32Array
  symbols: Uint32Array
}

export function readGrammar(input: ByteReader): Grammar {
  const rules = input.uint()
  const starts = new Uint32Array(rules + 1)
  const symbols: number[] = []
  for (let r = 0; r < rules; r++) {
    starts[r] = symbols.length
    const len = input.uint()
    for (let i = 0; i < len; i++) {
      const s = input.uint()
      if (s % 2 === 1 && (s - 1) / 2 >= rules) throw new Error(`grammar rule ${r} refers to rule ${(s - 1) / 2} of ${rules}`)
      symbols.push(s)
    }
  }
  starts[rules] = symbols.length
  return { starts, symbols: Uint32Array.from(symbols) }
}

/**
 * Expands a grammar incrementally into `out` from `offset`, at most `out.length - offset`
 * terminals; returns how many were written. Use a GrammarCursor to continue later.
 */
export class GrammarCursor {
  // Explicit stack of (rule, position) pairs: no recursion, bounded by the grammar's depth.
  private ruleStack: Uint32Array
  private posStack: Uint32Array
  private depth = 0

  constructor(private readonly g: Grammar) {
    const rules = g.starts.length - 1
    this.ruleStack = new Uint32Array(rules + 1)
    this.posStack = new Uint32Array(rules + 1)
    if (rules > 0) {
      this.ruleStack[0] = 0
      this.posStack[0] = g.starts[0]!
      this.depth = 1
    }
  }

  fill(out: Uint32Array, offset: number, max: number): number {
    const { starts, symbols } = this.g
    let n = 0
    while (n < max && this.depth > 0) {
      const d = this.depth - 1
      const r = this.ruleStack[d]!
      const pos = this.posStack[d]!
      if (pos >= starts[r + 1]!) {
        this.depth--
        continue
      }
      this.posStack[d] = pos + 1
      const s = symbols[pos]!
      if ((s & 1) === 0) out[offset + n++] = s >>> 1
      else {
        if (this.depth >= this.ruleStack.length) throw new Error('grammar is recursive')
        const k = (s - 1) >>> 1
        this.ruleStack[this.depth] = k
        this.posStack[this.depth] = starts[k]!
        this.depth++
      }
    }
    return n
  }
}
