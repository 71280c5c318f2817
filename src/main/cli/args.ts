/** A small, strict argument parser: unknown flags are errors that say what is accepted. */
import { StrideError } from '../../shared/errors'

export interface FlagSpec {
  /** Takes a value (otherwise a boolean switch). */
  value?: boolean
  /** May be given more than once (values collected in order). */
  repeat?: boolean
}

export interface ParsedArgs {
  positional: string[]
  flags: Map<string, string[]>
  /** Everything after a bare "--". */
  rest: string[]
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>, command: string): ParsedArgs {
  const out: ParsedArgs = { positional: [], flags: new Map(), rest: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--') {
      out.rest = argv.slice(i + 1)
      break
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2)
      const s = spec[name]
      if (!s) throw new StrideError(`stride ${command}: unknown option --${name}; accepted: ${Object.keys(spec).map((k) => `--${k}`).join(', ')}.`)
      let value = 'true'
      if (s.value) {
        if (eq > 0) value = a.slice(eq + 1)
        else {
          const next = argv[++i]
          if (next === undefined) throw new StrideError(`stride ${command}: --${name} needs a value.`)
          value = next
        }
      } else if (eq > 0) throw new StrideError(`stride ${command}: --${name} takes no value.`)
      const list = out.flags.get(name) ?? []
      if (list.length > 0 && !s.repeat) throw new StrideError(`stride ${command}: --${name} was given twice.`)
      list.push(value)
      out.flags.set(name, list)
    } else out.positional.push(a)
  }
  return out
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.[0]
}

export function flags(args: ParsedArgs, name: string): string[] {
  return args.flags.get(name) ?? []
}

export function has(args: ParsedArgs, name: string): boolean {
  return args.flags.has(name)
}

/** A positive integer, with K/M/G suffixes allowed (decimal here: event counts, not bytes). */
export function positiveInt(text: string, what: string, command: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmMgG]?)$/.exec(text.trim())
  const mult = m ? ({ '': 1, k: 1e3, m: 1e6, g: 1e9 } as Record<string, number>)[m[2]!.toLowerCase()]! : NaN
  const n = m ? Number(m[1]) * mult : NaN
  if (!Number.isSafeInteger(n) || n <= 0) throw new StrideError(`stride ${command}: ${what} "${text}" must be a positive whole number (e.g. 1000000 or 1M).`)
  return n
}
