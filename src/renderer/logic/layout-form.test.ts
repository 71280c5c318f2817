import { describe, expect, it } from 'vitest'
import type { VariableInfo } from '../../shared/domain'
import { layoutDraft, newLayoutDraft, paddingCandidates, parseLayoutForm } from './layout-form'

const variable = (name: string, kind: VariableInfo['kind'], dims: number[] | null): VariableInfo => ({
  name,
  kind,
  start: '0x1000',
  size: 8,
  type: null,
  elementSize: 8,
  dims,
  dimsFrom: dims ? 'type' : null,
  allocSite: null,
  reads: 0,
  writes: 0
})
const vars = [variable('unknown', 'unknown', null), variable('A', 'global', [1000, 1000]), variable('p', 'heap', null), { ...variable('flat', 'heap', [64, 512]), dimsFrom: 'strides' as const }]

describe('layout form', () => {
  it('starts from the first array, padded by 1 KiB', () => {
    expect(newLayoutDraft(vars)).toMatchObject({ kind: 'external', variable: 'A', bytes: '1K' })
  })

  it("lists the program's arrays first, libc's ELF-only symbols last (issue 47: the list started with __abi_tag)", () => {
    const abi = { ...variable('__abi_tag', 'global', null), reads: 5000 }
    const count = { ...variable('count', 'global', null), type: 'int', reads: 10 }
    const data = { ...variable('heap@cov.c:40', 'heap', [100, 80]), type: 'double', reads: 1 }
    const mean = { ...variable('mean', 'global', [80]), type: 'double [80]', reads: 90 }
    expect(paddingCandidates([abi, count, vars[0]!, data, mean]).map((v) => v.name)).toEqual(['mean', 'heap@cov.c:40', 'count', '__abi_tag'])
    expect(newLayoutDraft([abi, count, data]).variable).toBe('heap@cov.c:40')
  })

  it('parses external and internal padding', () => {
    const r = parseLayoutForm(
      [
        { kind: 'external', variable: 'p', bytes: '1K', dim: '0', extent: '' },
        { kind: 'internal', variable: 'A', bytes: '', dim: '1', extent: '1008' }
      ],
      vars
    )
    expect(r).toEqual({
      ok: true,
      layout: [
        { kind: 'external', variable: 'p', bytes: 1024 },
        { kind: 'internal', variable: 'A', dim: 1, extent: 1008, order: 'row' }
      ]
    })
  })

  it('round-trips filters through drafts', () => {
    const layout = [{ kind: 'external' as const, variable: 'A', bytes: 2048 }]
    expect(parseLayoutForm(layout.map(layoutDraft), vars)).toEqual({ ok: true, layout })
  })

  it.each([
    [{ kind: 'external', variable: 'Z', bytes: '1K' }, /"Z" is not one/],
    [{ kind: 'external', variable: 'unknown', bytes: '1K' }, /unknown owner/],
    [{ kind: 'external', variable: 'A', bytes: 'lots' }, /not a size/],
    [{ kind: 'internal', variable: 'p', dim: '0', extent: '9' }, /no known array dimensions/],
    [{ kind: 'internal', variable: 'A', dim: '2', extent: '9' }, /dimensions 0\.\.1 \(1000 x 1000\)/],
    [{ kind: 'internal', variable: 'A', dim: '1', extent: '999' }, /≥ 1000/],
    [{ kind: 'internal', variable: 'flat', dim: '2', extent: '9' }, /flat has dimensions 0\.\.1 \(64 x 512, inferred from strides\)/]
  ] as const)('names the problem: %o', (draft, message) => {
    const r = parseLayoutForm([{ bytes: '', dim: '0', extent: '', ...draft }], vars)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatch(message)
  })
})
