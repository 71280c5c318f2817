import { describe, expect, it } from 'vitest'
import { hasCapSysPtrace, permissionAdvice, readPtraceFacts, type PtraceFacts } from './ptrace-permission'

const names: Record<number, string> = { 0: 'root', 1000: 'ann', 1001: 'bob' }
const facts = (f: Partial<PtraceFacts>): PtraceFacts => ({ pid: 4242, uid: 1000, targetUid: 1000, capSysPtrace: false, yamaScope: 0, tracerPid: 0, userName: (id) => names[id] ?? `uid ${id}`, ...f })

describe('permissionAdvice', () => {
  it('root attaching to PID 1 with CAP_SYS_PTRACE is not told to run as root', () => {
    const a = permissionAdvice(facts({ pid: 1, uid: 0, targetUid: 0, capSysPtrace: true, yamaScope: null }))
    expect(a).toMatch(/^the kernel refuses it even though Stride has CAP_SYS_PTRACE \(process 1 is this system's init\)/)
    expect(a).not.toMatch(/as root|sudo/)
  })

  it('another user: run as that user; root without the capability: the capability', () => {
    expect(permissionAdvice(facts({ targetUid: 1001 }))).toBe('process 4242 belongs to bob and Stride runs as ann: run Stride as bob (sudo -u bob)')
    expect(permissionAdvice(facts({ targetUid: 0 }))).toBe('process 4242 belongs to root and Stride runs as ann: run Stride as root (sudo)')
    const container = permissionAdvice(facts({ uid: 0, targetUid: 1001 }))
    expect(container).toMatch(/runs as root but without the CAP_SYS_PTRACE capability .*--cap-add=SYS_PTRACE/)
    expect(container).not.toMatch(/run Stride as/)
  })

  it('Yama: each scope its own fix, and none once Stride has the capability (scope 3 excepted)', () => {
    expect(permissionAdvice(facts({ yamaScope: 1 }))).toMatch(/^kernel\.yama\.ptrace_scope=1 .*ancestors: allow attaching with "sudo sysctl kernel\.yama\.ptrace_scope=0".*setcap cap_sys_ptrace\+ep/)
    expect(permissionAdvice(facts({ yamaScope: 2 }))).toMatch(/^kernel\.yama\.ptrace_scope=2 .*run Stride with sudo, or give node the capability/)
    expect(permissionAdvice(facts({ yamaScope: 2, uid: 0, targetUid: 0 }))).toMatch(/give Stride that capability$/)
    expect(permissionAdvice(facts({ yamaScope: 3, capSysPtrace: true }))).toMatch(/ptrace_scope=3, lifted only by a reboot\): launch the program under Stride instead/)
    expect(permissionAdvice(facts({ yamaScope: 1, capSysPtrace: true }))).toMatch(/^the kernel refuses it even though Stride has CAP_SYS_PTRACE: /)
  })

  it('a process already traced, and an undumpable one of the same user', () => {
    expect(permissionAdvice(facts({ tracerPid: 77, capSysPtrace: true }))).toMatch(/^process 4242 is already traced by process 77 .*detach that tracer first$/)
    expect(permissionAdvice(facts({}))).toMatch(/^process 4242 is not dumpable .*run Stride with sudo$/)
  })

  it('reads CAP_SYS_PTRACE (bit 19) from CapEff, and the facts of this very process', () => {
    expect(hasCapSysPtrace('CapPrm:\t0\nCapEff:\t000001fffeffffff\n')).toBe(true)
    expect(hasCapSysPtrace('CapEff:\t00000000fff7ffff\n')).toBe(false)
    expect(hasCapSysPtrace('CapEff:\t0000000000080000\n')).toBe(true)
    const own = readPtraceFacts(process.pid)
    expect(own.uid).toBe(process.geteuid!())
    expect(own.targetUid).toBe(process.getuid!())
    expect(own.userName(0)).toBe('root')
  })
})
