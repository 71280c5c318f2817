/**
 * A result a worker serialized already (JsonText) goes out as its own text, in exactly the
 * message JSON.stringify would make of the same value; other results are serialized as before.
 */
import { describe, expect, it, vi } from 'vitest'
import type { StrideBackend } from '../services/backend'
import { JsonText } from '../services/json-text'
import { createWireSession } from './wire-session'

const REPORT = { run: 3, config: { levels: [{ name: 'L1' }] }, references: [{ id: 'A_Read_0', levels: { L1: { hits: 9, misses: 1 } } }], note: 'é "quoted" \u2028' }

function session(result: unknown) {
  const sent: string[] = []
  const backend: StrideBackend = { call: async () => result, subscribe: () => () => {}, dispose: async () => {} }
  const wire = createWireSession(backend, 'client', (text) => sent.push(text))
  return { wire, sent }
}

const answered = async (sent: string[]) => {
  for (let i = 0; i < 100 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 1))
  return sent
}

describe('wire session: results serialized in a worker', () => {
  it('sends a JsonText result as the message JSON.stringify makes of its value', async () => {
    const { wire, sent } = session(new JsonText(JSON.stringify(REPORT)))
    const parsed = vi.spyOn(JsonText.prototype, 'toJSON')
    wire.receive(JSON.stringify({ id: 41, method: 'getReport', input: { session: '/s.stride' } }))
    const [text] = await answered(sent)
    expect(text).toBe(JSON.stringify({ id: 41, ok: true, result: REPORT }))
    expect(parsed).not.toHaveBeenCalled() // the text itself went out, not parsed and made again
    parsed.mockRestore()
  })

  it('still serializes plain results, and a JsonText anywhere else through its toJSON', async () => {
    const { wire, sent } = session({ nested: new JsonText('[1,2]') })
    wire.receive(JSON.stringify({ id: 7, method: 'listExamples' }))
    const [text] = await answered(sent)
    expect(JSON.parse(text!)).toEqual({ id: 7, ok: true, result: { nested: [1, 2] } })
  })
})
