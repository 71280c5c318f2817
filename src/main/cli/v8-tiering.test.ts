import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { INTERRUPT_BUDGET } from './v8-tiering'

describe('tierUpLater', () => {
  it('sets a flag this V8 has, four times its default (an unknown flag would be ignored without a word)', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' })
    const fallback = /--interrupt-budget \(.*\)\s+type: int\s+default: --interrupt-budget=(\d+)/.exec(options)
    expect(fallback).not.toBeNull()
    expect(INTERRUPT_BUDGET).toBe(4 * Number(fallback![1]))
  })
})
