import { describe, expect, it } from 'vitest'
import { StrideError } from '../../../shared/errors'
import { FRIDA_INSTALL_HINT, loadFrida } from './frida-api'
import { fridaError } from './frida-errors'
import { permissionAdvice, type PtraceFacts } from './ptrace-permission'

describe('loadFrida', () => {
  it('turns a missing package into the one-line install hint', async () => {
    const missing = Object.assign(new Error("Cannot find package 'frida' imported from /x/cli.js"), { code: 'ERR_MODULE_NOT_FOUND' })
    await expect(loadFrida(() => Promise.reject(missing))).rejects.toThrow(FRIDA_INSTALL_HINT)
    await expect(loadFrida(() => Promise.reject(missing))).rejects.toMatchObject({ code: 'tool-missing' })
    expect(FRIDA_INSTALL_HINT).toMatch(/npm install frida/)
    expect(FRIDA_INSTALL_HINT).not.toMatch(/\n/)
  })

  it('says a broken install is broken (not missing), and rejects a package without the API', async () => {
    await expect(loadFrida(() => Promise.reject(new Error('frida_binding.node: invalid ELF header')))).rejects.toThrow(/installed but does not load \(frida_binding.node: invalid ELF header\)/)
    await expect(loadFrida(() => Promise.resolve({ default: {} }))).rejects.toThrow(/no getLocalDevice/)
  })

  it('accepts the ESM module shape', async () => {
    const frida = { getLocalDevice: async () => ({}) }
    await expect(loadFrida(() => Promise.resolve({ default: frida }))).resolves.toBe(frida)
  })
})

describe('fridaError', () => {
  it('permission denied: the advice for the facts at hand, else Frida\'s own words', () => {
    const facts: PtraceFacts = { pid: 4242, uid: 1000, targetUid: 1000, capSysPtrace: false, yamaScope: 1, tracerPid: 0, userName: (id) => (id === 0 ? 'root' : 'ann') }
    const e = fridaError(new Error('Unable to access process with pid 4242 due to system restrictions; try `sudo sysctl kernel.yama.ptrace_scope=0`, or run Frida as root'), 4242, null, facts)
    expect(e.code).toBe('permission-denied')
    expect(e.message).toBe(`Permission denied attaching to process 4242: ${permissionAdvice(facts)}.`)
    expect(e.message).toMatch(/sysctl kernel\.yama\.ptrace_scope=0/)
    expect(e.message).toMatch(/setcap cap_sys_ptrace\+ep/)
    expect(fridaError(new Error('Unable to access /proc/4242/mem'), 4242).message).toBe('Permission denied attaching to process 4242: Unable to access /proc/4242/mem.')
  })

  it('process gone', () => {
    for (const text of ['Unable to find process with pid 4242', 'Process not found']) {
      const e = fridaError(new Error(text), 4242)
      expect(e.code).toBe('not-found')
      expect(e.message).toBe('Process 4242 is gone (it exited or the PID is wrong); pick a running process from the list.')
    }
  })

  it('architecture unsupported, and anything else, name the process', () => {
    expect(fridaError(new Error('Unable to inject library into process without libc'), 7).message).toMatch(/^Frida cannot instrument process 7: .*x86-64/)
    const other = fridaError(new Error('Timeout was reached'), 7)
    expect(other.message).toBe('Frida failed on process 7: Timeout was reached.')
    expect(other.code).toBe('target-failed')
  })

  it('keeps a StrideError as it is', () => {
    const mine = new StrideError('mine', 'not-found')
    expect(fridaError(mine, 1)).toBe(mine)
  })
})
