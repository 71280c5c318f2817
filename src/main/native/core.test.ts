import { describe, expect, it } from 'vitest'
import { NATIVE_CORE_ABI, nativeCore } from './core'

describe('native core', () => {
  it('is built and loads with the ABI this code expects', () => {
    expect(nativeCore().abi()).toBe(NATIVE_CORE_ABI)
  })
})
