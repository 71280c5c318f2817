import { describe, expect, it } from 'vitest'
import { parseCacheSpec, parseSize, parseTlbSpec } from '../../shared/sizes'
import { flag, flags, parseArgs, positiveInt } from './args'

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
})
