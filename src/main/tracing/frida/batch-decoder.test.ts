/**
 * Decoding a batch recorded from the agent's own C (fixtures/sumfunc-batch.bin, written by
 * src/agent/cmodule/fixtures/harness.c from fixtures/sumfunc-batch.txt: sumfunc's loop of
 * the conflict example twice, a rep movsq, an AVX2 gather, ret, heap events).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RECORD_BYTES } from '../../../agent/protocol'
import { decodeBatch, type BatchVisitor } from './batch-decoder'

const FIXTURE = readFileSync(join(__dirname, 'fixtures', 'sumfunc-batch.bin'))

function collect(bytes: Uint8Array, records: number): string[] {
  const out: string[] = []
  const h = (n: number) => `0x${n.toString(16)}`
  const v: BatchVisitor = {
    access: (pc, kind, address, size) => out.push(`access ${h(pc)} ${'RWM'[kind]} ${h(address)} ${size}`),
    enter: (fn, sp, ret) => out.push(`enter ${h(fn)} sp=${h(sp)} ret=${h(ret)}`),
    exit: (fn, sp) => out.push(`exit ${h(fn)} sp=${h(sp)}`),
    alloc: (kind, block, size, old) => out.push(`${kind} ${h(block)} ${size} old=${h(old)}`),
    frame: (i, pc) => out.push(`frame ${i} ${h(pc)}`),
    free: (block) => out.push(`free ${h(block)}`),
    untraced: (pc, reason) => out.push(`untraced ${h(pc)} ${reason}`)
  }
  decodeBatch(bytes, records, v)
  return out
}

describe('decodeBatch', () => {
  it('decodes a recorded batch in order, with 64-bit addresses intact', () => {
    expect(collect(FIXTURE, FIXTURE.length / RECORD_BYTES)).toEqual([
      'malloc 0x5555555592a0 1024 old=0x0',
      'frame 0 0x555555555190',
      'frame 1 0x7ffff7dd1d90',
      'enter 0x555555555139 sp=0x7fffffffe3b8 ret=0x555555555195',
      'access 0x55555555514d R 0x555555558040 8',
      'access 0x555555555152 R 0x555555568040 8',
      'access 0x555555555157 R 0x555555578040 8',
      'access 0x55555555514d R 0x555555558048 8',
      'access 0x555555555152 R 0x555555568048 8',
      'access 0x555555555157 R 0x555555578048 8',
      'access 0x555555555170 R 0x555555568040 8',
      'access 0x555555555170 W 0x555555558040 8',
      'access 0x555555555170 R 0x555555568048 8',
      'access 0x555555555170 W 0x555555558048 8',
      'untraced 0x555555555172 gather',
      'access 0x55555555516d R 0x7fffffffe3b8 8',
      'exit 0x555555555139 sp=0x7fffffffe3c0',
      'realloc 0x5555555596b0 2048 old=0x5555555592a0',
      'frame 0 0x5555555551a0',
      'free 0x5555555596b0'
    ])
  })

  it('all records of one batch carry the producing thread', () => {
    const threads = new Set<number>()
    const v = { access: (...a: number[]) => threads.add(a[4]!), enter: (...a: number[]) => threads.add(a[3]!) } as unknown as BatchVisitor
    const noop = () => {}
    decodeBatch(FIXTURE, FIXTURE.length / RECORD_BYTES, { ...v, exit: noop, alloc: noop, frame: noop, free: noop, untraced: noop })
    expect(threads.size).toBe(1)
  })

  it('rejects a batch whose size does not match its record count, or an unknown record type', () => {
    expect(() => collect(FIXTURE.subarray(0, 40), 1)).toThrow(/malformed batch: 40 bytes for 1 records/)
    const bad = Uint8Array.from(FIXTURE.subarray(0, RECORD_BYTES))
    bad[0] = 99
    expect(() => collect(bad, 1)).toThrow(/unknown record type 99/)
    bad[0] = 1
    bad[1] = 7
    expect(() => collect(bad, 1)).toThrow(/unknown access kind 7/)
  })
})
