/**
 * Strict argument parsing on Node's own `util.parseArgs`: unknown flags, missing values and
 * repeated single flags are errors that say what is accepted.
 */
import { parseArgs as parseNodeArgs, type ParseArgsConfig } from 'node:util'
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

type NodeOptions = NonNullable<ParseArgsConfig['options']>

/**
 * `--skid -1:0.7`: util.parseArgs calls a value starting with '-' ambiguous; a negative number
 * is no flag, so it is joined to its flag as `--skid=-1:0.7`.
 */
function joinNegativeValues(argv: string[], spec: Record<string, FlagSpec>): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--') return [...out, ...argv.slice(i)]
    const next = argv[i + 1]
    if (a.startsWith('--') && !a.includes('=') && spec[a.slice(2)]?.value && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`)
      i++
    } else out.push(a)
  }
  return out
}

/** util.parseArgs' error as one line in Stride's words. */
function explain(e: unknown, spec: Record<string, FlagSpec>, command: string): StrideError {
  const message = e instanceof Error ? e.message : String(e)
  const code = (e as { code?: string }).code
  const name = /'(-{1,2}[^' =<]+)/.exec(message)?.[1] ?? '?'
  const bare = name.replace(/^-+/, '')
  const accepted = Object.keys(spec).map((k) => `--${k}`).join(', ')
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new StrideError(`stride ${command}: unknown option ${name}; accepted: ${accepted || 'none'}.`)
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (spec[bare]?.value) return new StrideError(`stride ${command}: --${bare} needs a value (one starting with '-' is written --${bare}=VALUE).`)
    return new StrideError(`stride ${command}: --${bare} takes no value.`)
  }
  return new StrideError(`stride ${command}: ${message.split('\n')[0]}`)
}

/** The flags of one hierarchy: `stride simulate`'s, and `stride trace`'s first simulation. */
export const HIERARCHY_FLAGS = { cache: { value: true, repeat: true }, tlb: { value: true, repeat: true }, 'cachegrind-compatible': {} } satisfies Record<string, FlagSpec>

/** `stride trace`'s flags (those of `--attach` and the Frida backend too). */
export const TRACE_FLAGS = {
  launch: { value: true },
  attach: { value: true },
  backend: { value: true },
  functions: { value: true },
  'max-events': { value: true },
  seconds: { value: true },
  out: { value: true },
  force: {},
  'no-heap': {},
  sampling: { value: true },
  'follow-calls': {},
  'stop-at-limit': {},
  'no-context': {},
  ...HIERARCHY_FLAGS
} satisfies Record<string, FlagSpec>

/** `stride top`'s flags: a whole-program trace's (--launch), or a session's run to rank (--run). */
export const TOP_FLAGS = {
  launch: { value: true },
  out: { value: true },
  force: {},
  'no-heap': {},
  'max-events': { value: true },
  seconds: { value: true },
  run: { value: true },
  count: { value: true },
  all: {},
  json: {},
  ...HIERARCHY_FLAGS
} satisfies Record<string, FlagSpec>

/**
 * `stride trace [options] --launch PROG ARGS...`, as valgrind and perf take a program: the first
 * token after PROG that is not one of `spec`'s flags (with its value) starts the program's
 * arguments, and everything from there on is the program's. They are marked off with a "--"
 * inserted before them, so that parseArgs puts them in `rest`. An argv that already has a "--"
 * after PROG is returned as it is (the options between PROG and "--" are Stride's), and so is
 * one without `--launch`.
 */
export function markProgramArgs(argv: string[], spec: Record<string, FlagSpec>, launch = 'launch'): string[] {
  const known = (token: string) => token.startsWith('--') && Object.hasOwn(spec, token.slice(2).split('=')[0]!)
  const takesValue = (token: string) => known(token) && !token.includes('=') && spec[token.slice(2)]!.value === true
  let start = -1
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--') return argv
    if (a === `--${launch}`) {
      start = i + 2
      break
    }
    if (a.startsWith(`--${launch}=`)) {
      start = i + 1
      break
    }
    if (takesValue(a)) i++
  }
  if (start < 0 || start >= argv.length || argv.indexOf('--', start) >= 0) return argv
  let i = start
  while (i < argv.length) {
    const a = argv[i]!
    if (!known(a)) break
    i += takesValue(a) ? 2 : 1
  }
  return i < argv.length ? [...argv.slice(0, i), '--', ...argv.slice(i)] : argv
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>, command: string): ParsedArgs {
  const options: NodeOptions = Object.fromEntries(Object.entries(spec).map(([name, s]) => [name, { type: s.value ? 'string' : 'boolean', multiple: s.repeat ?? false }]))
  const args = joinNegativeValues(argv, spec)
  let tokens
  try {
    tokens = parseNodeArgs({ args, options, strict: true, allowPositionals: true, tokens: true }).tokens
  } catch (e) {
    throw explain(e, spec, command)
  }
  const out: ParsedArgs = { positional: [], flags: new Map(), rest: [] }
  for (const t of tokens) {
    if (t.kind === 'option-terminator') {
      out.rest = args.slice(t.index + 1)
      break
    }
    if (t.kind === 'positional') out.positional.push(t.value)
    else {
      // util.parseArgs keeps the last of a repeated single flag; a repeat is more likely a mistake.
      const list = out.flags.get(t.name) ?? []
      if (list.length > 0 && !spec[t.name]?.repeat) throw new StrideError(`stride ${command}: --${t.name} was given twice.`)
      list.push(t.value ?? 'true')
      out.flags.set(t.name, list)
    }
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
  // Decimal digits only (0x8, 8e0, 8.0 are refused); a fraction only before a suffix (1.5M).
  const m = /^(\d{1,16})(?:(\.\d{1,9})?([kKmMgG]))?$/.exec(text)
  const mult = m ? ({ '': 1, k: 1e3, m: 1e6, g: 1e9 } as Record<string, number>)[(m[3] ?? '').toLowerCase()]! : NaN
  const n = m ? Math.round(Number(m[1]! + (m[2] ?? '')) * mult * 1e9) / 1e9 : NaN
  if (!Number.isSafeInteger(n) || n <= 0) throw new StrideError(`stride ${command}: ${what} "${text.length > 40 ? `${text.slice(0, 40)}…` : text}" must be a positive whole number in decimal digits (e.g. 1000000 or 1M).`)
  return n
}
