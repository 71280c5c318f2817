/**
 * Reads a `cachegrind.out.*` file (Valgrind's Cachegrind with --cache-sim=yes): the summary
 * totals and per file:line counts. Used as the oracle for the Cachegrind-compatible mode
 * (tests and bench/); pure.
 */

export interface CachegrindCounts {
  Dr: number
  D1mr: number
  Dw: number
  D1mw: number
}

export interface CachegrindOut {
  events: string[]
  totals: CachegrindCounts
  /** Key `file:line`; counts summed over the functions (inlined code shares lines). */
  lines: Map<string, CachegrindCounts>
}

const zero = (): CachegrindCounts => ({ Dr: 0, D1mr: 0, Dw: 0, D1mw: 0 })

export function parseCachegrindOut(text: string): CachegrindOut {
  let events: string[] = []
  let file = ''
  const lines = new Map<string, CachegrindCounts>()
  let totals: CachegrindCounts | null = null
  const pick = (values: number[]): CachegrindCounts => {
    const at = (name: string) => {
      const i = events.indexOf(name)
      if (i < 0) throw new Error(`cachegrind output has no ${name} event; run it with --cache-sim=yes`)
      return values[i] ?? 0
    }
    return { Dr: at('Dr'), D1mr: at('D1mr'), Dw: at('Dw'), D1mw: at('D1mw') }
  }
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line.startsWith('events:')) events = line.slice(7).trim().split(/\s+/)
    else if (line.startsWith('fl=')) file = line.slice(3)
    else if (line.startsWith('summary:')) totals = pick(line.slice(8).trim().split(/\s+/).map(Number))
    else if (/^\d/.test(line)) {
      const [lineNo, ...values] = line.split(/\s+/).map(Number)
      const key = `${file}:${lineNo}`
      const c = pick(values)
      const sum = lines.get(key) ?? zero()
      sum.Dr += c.Dr
      sum.D1mr += c.D1mr
      sum.Dw += c.Dw
      sum.D1mw += c.D1mw
      lines.set(key, sum)
    }
  }
  if (!totals) throw new Error('cachegrind output has no summary line')
  return { events, totals, lines }
}
