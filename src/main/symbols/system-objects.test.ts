import { describe, expect, it } from 'vitest'
import { inSystemFolder, isSystemObject } from './system-objects'

describe('system objects', () => {
  it('counts the system\'s library folders and /usr/libexec as installed by the system', () => {
    expect(inSystemFolder('/usr/lib/x86_64-linux-gnu/libc.so.6')).toBe(true)
    expect(inSystemFolder('/lib64/ld-linux-x86-64.so.2')).toBe(true)
    // Valgrind's own preload, mapped into every program it runs: its symbols are kept across traces.
    expect(inSystemFolder('/usr/libexec/valgrind/vgpreload_core-amd64-linux.so')).toBe(true)
  })

  it('leaves objects built with the program (and /usr/local) to be read each time', () => {
    expect(inSystemFolder('/home/ana/build/libkernels.so')).toBe(false)
    expect(inSystemFolder('/usr/local/lib/libfoo.so')).toBe(false)
    expect(inSystemFolder('/usr/library/libc.so.6')).toBe(false)
    expect(inSystemFolder('/tmp/usr/libexec/x.so')).toBe(false)
  })

  it('knows allocators and runtimes by name wherever they are', () => {
    expect(isSystemObject('/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30')).toBe(true)
    expect(isSystemObject('/home/ana/build/libkernels.so')).toBe(false)
  })
})
