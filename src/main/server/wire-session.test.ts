/**
 * A result a worker serialized already (JsonText: UTF-8 bytes) goes out as its own bytes, in
 * exactly the message JSON.stringify would make of the same value; other results are
 * serialized as before.
 */
import { describe, expect, it, vi } from 'vitest'
import type { StrideBackend } from '../services/backend'
import { JsonText, textOf } from '../services/json-text'
import { createWireSession } from './wire-session'

const REPORT = { run: 3, config: { levels: [{ name: 'L1' }] }, references: [{ id: 'A_Read_0', levels: { L1: { hits: 9, misses: 1 } } }], note: 'é "quoted" \u2028' }

function session(result: unknown) {
  const sent: Array<string | Uint8Array> = []
  const backend: StrideBackend = { call: async () => result, subscribe: () => () => {}, dispose: async () => {} }
  const wire = createWireSession(backend, 'client', (message) => sent.push(message))
  return { wire, sent }
}

const answered = async (sent: Array<string | Uint8Array>) => {
  for (let i = 0; i < 100 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 1))
  return sent
}

describe('wire session: results serialized in a worker', () => {
  it('sends a JsonText result as the message JSON.stringify makes of its value', async () => {
    const { wire, sent } = session(new JsonText(JsonText.bytesOf(REPORT)))
    const parsed = vi.spyOn(JsonText.prototype, 'toJSON')
    wire.receive(JSON.stringify({ id: 41, method: 'getReport', input: { session: '/s.stride' } }))
    const [message] = await answered(sent)
    // Bytes, not a string: the JSON was encoded on the worker and is not encoded again.
    expect(message).toBeInstanceOf(Uint8Array)
    expect(textOf(message as Uint8Array)).toBe(JSON.stringify({ id: 41, ok: true, result: REPORT }))
    expect(parsed).not.toHaveBeenCalled() // the bytes themselves went out, not parsed and made again
    parsed.mockRestore()
  })

  it('still serializes plain results, and a JsonText anywhere else through its toJSON', async () => {
    const { wire, sent } = session({ nested: new JsonText(JsonText.bytesOf([1, 2])) })
    wire.receive(JSON.stringify({ id: 7, method: 'listExamples' }))
    const [text] = await answered(sent)
    expect(typeof text).toBe('string')
    expect(JSON.parse(text as string)).toEqual({ id: 7, ok: true, result: { nested: [1, 2] } })
  })
})

describe('JsonText.bytesOf', () => {
  it('gives JSON bytes in a buffer of their own, small or large (a transfer moves only them)', () => {
    for (const value of [[1, 2], { big: 'x'.repeat(100_000), note: 'é —' }]) {
      const bytes = JsonText.bytesOf(value)
      expect(bytes.byteOffset).toBe(0)
      expect(bytes.byteLength).toBe(bytes.buffer.byteLength)
      expect(JSON.parse(textOf(bytes))).toEqual(value)
    }
  })
})
