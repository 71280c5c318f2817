import { describe, expect, it } from 'vitest'
import { newTlbDraft, parseTlbForm, tlbDraft } from './tlb-form'

describe('parseTlbForm', () => {
  it('turns the rows into TLB levels, innermost first, and back', () => {
    const first = newTlbDraft([])
    const rows = [first, { ...newTlbDraft([first]), pageSize: '2M' }]
    const r = parseTlbForm(rows)
    expect(r).toEqual({
      ok: true,
      tlb: [
        { name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096, policy: 'lru' },
        { name: 'STLB', entries: 2048, assoc: 16, pageSize: 2097152, policy: 'lru' }
      ]
    })
    if (r.ok) expect(r.tlb.map(tlbDraft)).toEqual([first, { ...rows[1], pageSize: '2M' }])
  })

  it('refuses what the contract refuses, naming the level', () => {
    expect(parseTlbForm([{ ...newTlbDraft([]), entries: '48', assoc: '4' }])).toEqual({ ok: false, error: 'DTLB: the number of TLB sets (entries / associativity) must be a power of two.' })
    expect(parseTlbForm([{ ...newTlbDraft([]), entries: '0x40' }])).toMatchObject({ ok: false, error: /entries must be a whole number/ })
    expect(parseTlbForm([{ ...newTlbDraft([]), pageSize: 'big' }])).toMatchObject({ ok: false, error: /page size "big" is not a size/ })
    expect(parseTlbForm([newTlbDraft([]), newTlbDraft([]), newTlbDraft([])])).toEqual({ ok: false, error: 'At most two data TLB levels.' })
  })

  it('no rows: no TLB', () => {
    expect(parseTlbForm([])).toEqual({ ok: true, tlb: [] })
  })
})
