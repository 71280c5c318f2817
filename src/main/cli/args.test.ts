import { describe, expect, it } from 'vitest'
import { parseCacheSpec, parseSize, parseTlbSpec } from '../../shared/sizes'
import { flag, flags, markProgramArgs, parseArgs, positiveInt, TRACE_FLAGS } from './args'

describe('CLI arguments', () => {
  const spec = { cache: { value: true, repeat: true }, json: {}, out: { value: true } }
  it('collects repeatable flags, switches, positionals and the rest after --', () => {
    const a = parseArgs(['s.stride', '--cache', 'L1:32K:8:64', '--cache=L2:1M:16:64', '--json', '--', '-x', '1'], spec, 'simulate')
    expect(a.positional).toEqual(['s.stride'])
    expect(flags(a, 'cache')).toEqual(['L1:32K:8:64', 'L2:1M:16:64'])
    expect(flag(a, 'json')).toBe('true')
    expect(a.rest).toEqual(['-x', '1'])
  })
  it('names the problem on bad input', () => {
    expect(() => parseArgs(['--nope'], spec, 'simulate')).toThrow(/unknown option --nope; accepted: --cache/)
    expect(() => parseArgs(['--out'], spec, 'simulate')).toThrow(/--out needs a value/)
    expect(() => parseArgs(['--out', 'a', '--out', 'b'], spec, 'simulate')).toThrow(/given twice/)
    expect(() => parseArgs(['--json=yes'], spec, 'simulate')).toThrow('stride simulate: --json takes no value.')
    expect(() => parseArgs(['-q'], spec, 'simulate')).toThrow(/unknown option -q; accepted: --cache, --json, --out/)
    expect(() => parseArgs(['--out', '-x'], spec, 'simulate')).toThrow("--out needs a value (one starting with '-' is written --out=VALUE)")
  })
  it('takes a negative number as a value, and a value starting with - when written --flag=VALUE', () => {
    expect(flag(parseArgs(['--out', '-1:0.7'], spec, 'objects'), 'out')).toBe('-1:0.7')
    expect(flag(parseArgs(['--out=-x'], spec, 'objects'), 'out')).toBe('-x')
    // After "--" nothing is joined or parsed.
    expect(parseArgs(['--', '--out', '-1'], spec, 'trace').rest).toEqual(['--out', '-1'])
    expect(() => positiveInt('-3', '--max-events', 'trace')).toThrow(/positive whole number/)
    expect(positiveInt('2M', '--max-events', 'trace')).toBe(2_000_000)
  })
  it('parses sizes and cache specs as CLI.md says', () => {
    expect(parseSize('32K')).toBe(32768)
    expect(parseSize('1M')).toBe(1 << 20)
    expect(parseSize('64')).toBe(64)
    expect(parseSize('12Q')).toBeNull()
    expect(parseCacheSpec('L1:128K:2:128')).toEqual({ name: 'L1', size: 131072, assoc: 2, lineSize: 128, policy: 'lru' })
    expect(parseCacheSpec('L1:32K:8')).toMatch(/NAME:SIZE:ASSOC:LINE/)
    expect(parseCacheSpec('L1:32K:8:64:plru')).toMatchObject({ policy: 'plru' })
    expect(parseCacheSpec('L2:1M:16:64:random:wt,nwa,incl,pf=stride,seed=9')).toEqual({
      name: 'L2', size: 1 << 20, assoc: 16, lineSize: 64, policy: 'random', writePolicy: 'write-through', writeAllocate: false, inclusive: true, prefetch: 'stride', seed: 9
    })
    expect(parseCacheSpec('L1:32K:8:64:mru')).toMatch(/policy "mru" is not one of/)
    expect(parseCacheSpec('L1:32K:8:64:lru:pf=far')).toMatch(/option "pf=far"/)
    expect(parseTlbSpec('DTLB:64:4:4K')).toEqual({ name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096 })
    expect(parseTlbSpec('DTLB:64:4')).toMatch(/NAME:ENTRIES:ASSOC:PAGE/)
  })

  describe('stride trace --launch PROG ARGS... (no -- needed)', () => {
    const trace = (argv: string[]) => parseArgs(markProgramArgs(argv, TRACE_FLAGS), TRACE_FLAGS, 'trace')
    const program = (argv: string[]) => {
      const a = trace(argv)
      return { launch: flag(a, 'launch'), out: flag(a, 'out'), rest: a.rest, positional: a.positional }
    }
    it("gives the program everything from the first word after it that is not trace's option", () => {
      expect(program(['--out', 's.stride', '--launch', '/usr/bin/sort', '-n', 'file'])).toEqual({ launch: '/usr/bin/sort', out: 's.stride', rest: ['-n', 'file'], positional: [] })
      expect(program(['--launch=/usr/bin/sort', '-n', 'file', '--out', 's.stride'])).toEqual({ launch: '/usr/bin/sort', out: undefined, rest: ['-n', 'file', '--out', 's.stride'], positional: [] })
      // Known options right after PROG stay Stride's, with their values, until the first other word.
      const a = trace(['--launch', './prog', '--functions', 'f', '--out', 's.stride', '--no-heap', '--cache=L1:32K:8:64', '7', '--out', 'x'])
      expect([flag(a, 'functions'), flag(a, 'out'), flag(a, 'no-heap'), flags(a, 'cache')]).toEqual(['f', 's.stride', 'true', ['L1:32K:8:64']])
      expect(a.rest).toEqual(['7', '--out', 'x'])
      // Once the program's arguments have started, an option's name among them is the program's.
      expect(program(['--launch', './prog', 'input', '--out', 'x'])).toEqual({ launch: './prog', out: undefined, rest: ['input', '--out', 'x'], positional: [] })
      // Options before --launch are Stride's, whatever their values.
      expect(program(['--out=--launch', '--launch', './prog', '-v'])).toEqual({ launch: './prog', out: '--launch', rest: ['-v'], positional: [] })
      // A word that is no option of trace's: the program's (so is --help, as valgrind passes it on).
      expect(program(['--launch', './prog', '--out', 's', '--help'])).toEqual({ launch: './prog', out: 's', rest: ['--help'], positional: [] })
      expect(program(['--launch', './prog', '--constructor'])).toMatchObject({ rest: ['--constructor'] })
    })
    it('keeps today\'s meaning when a -- follows PROG, or without --launch', () => {
      expect(program(['--launch', './prog', '--out', 's.stride', '--', '-n', 'file'])).toEqual({ launch: './prog', out: 's.stride', rest: ['-n', 'file'], positional: [] })
      // With --, the options between PROG and -- are Stride's: an unknown one is an error, a word is not the program's.
      expect(() => trace(['--launch', '/usr/bin/sort', '-n', '--out', 's', '--', 'file'])).toThrow(/unknown option -n/)
      expect(program(['--launch', './prog', 'input', '--', 'x'])).toMatchObject({ positional: ['input'], rest: ['x'] })
      expect(markProgramArgs(['--attach', '12', '--out', 's', 'x'], TRACE_FLAGS)).toEqual(['--attach', '12', '--out', 's', 'x'])
      expect(markProgramArgs(['--launch', './prog'], TRACE_FLAGS)).toEqual(['--launch', './prog'])
      expect(markProgramArgs(['--launch', './prog', '--out', 's'], TRACE_FLAGS)).toEqual(['--launch', './prog', '--out', 's'])
      expect(() => trace(['--launch'])).toThrow(/--launch needs a value/)
      // A word before --launch is not the program's.
      expect(program(['input', '--launch', './prog', 'x'])).toMatchObject({ positional: ['input'], rest: ['x'] })
    })
  })
})
