/**
 * Why the kernel refuses Stride access to a process, and the fix that applies here: the
 * facts ptrace's permission check depends on (who Stride runs as, its CAP_SYS_PTRACE, the
 * target's owner and tracer, Yama's ptrace_scope) read from /proc, and one advice clause
 * chosen from them as the kernel decides (kernel/ptrace.c ptrace_may_access, then Yama).
 * The advice never tells root to run as root, nor a user to change a setting that is not
 * the one in the way.
 */
import { readFileSync } from 'node:fs'

export interface PtraceFacts {
  pid: number | null
  /** Stride's effective user id. */
  uid: number
  /** The target's real user id; null when /proc does not say (the process is gone). */
  targetUid: number | null
  /** CAP_SYS_PTRACE in Stride's effective capability set. */
  capSysPtrace: boolean
  /** kernel.yama.ptrace_scope; null where Yama is not built in. */
  yamaScope: number | null
  /** The process already tracing the target (a debugger, strace), 0 for none. */
  tracerPid: number
  /** User names by id (from /etc/passwd), for the message. */
  userName: (uid: number) => string
}

const CAP_SYS_PTRACE = 19n

/** Pure: CAP_SYS_PTRACE from /proc/PID/status's CapEff line. */
export function hasCapSysPtrace(status: string): boolean {
  const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)
  return m !== null && ((BigInt(`0x${m[1]}`) >> CAP_SYS_PTRACE) & 1n) === 1n
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/** The facts for `pid` (null: a program Stride launches itself). */
export function readPtraceFacts(pid: number | null): PtraceFacts {
  const own = read('/proc/self/status') ?? ''
  const target = pid !== null ? read(`/proc/${pid}/status`) : null
  const scope = read('/proc/sys/kernel/yama/ptrace_scope')
  const uid = process.geteuid?.() ?? 0
  const passwd = read('/etc/passwd') ?? ''
  return {
    pid,
    uid,
    targetUid: target ? Number(/^Uid:\s*(\d+)/m.exec(target)?.[1] ?? NaN) : pid === null ? uid : null,
    capSysPtrace: hasCapSysPtrace(own),
    yamaScope: scope !== null && /^\d+\s*$/.test(scope) ? Number(scope) : null,
    tracerPid: target ? Number(/^TracerPid:\s*(\d+)/m.exec(target)?.[1] ?? 0) : 0,
    userName: (id) => new RegExp(`^([^:\\n]+):[^:\\n]*:${id}:`, 'm').exec(passwd)?.[1] ?? `uid ${id}`
  }
}

const SETCAP = 'sudo setcap cap_sys_ptrace+ep $(readlink -f $(which node))'

/** Pure: why access to the process is refused and what fixes it, as one clause. */
export function permissionAdvice(f: PtraceFacts): string {
  const it = f.pid !== null ? `process ${f.pid}` : 'the program'
  if (f.tracerPid > 0 && f.tracerPid !== process.pid)
    return `${it} is already traced by process ${f.tracerPid} (a debugger or strace; a process has one tracer at a time): detach that tracer first`
  if (f.targetUid !== null && Number.isFinite(f.targetUid) && f.targetUid !== f.uid && !f.capSysPtrace)
    return f.uid === 0
      ? `Stride runs as root but without the CAP_SYS_PTRACE capability (a container's default), which another user's ${it} needs: give it that capability (docker run --cap-add=SYS_PTRACE)`
      : `${it} belongs to ${f.userName(f.targetUid)} and Stride runs as ${f.userName(f.uid)}: run Stride as ${f.userName(f.targetUid)}${f.targetUid === 0 ? ' (sudo)' : ` (sudo -u ${f.userName(f.targetUid)})`}`
  if (f.yamaScope === 3) return `ptrace is switched off on this machine (kernel.yama.ptrace_scope=3, lifted only by a reboot): launch the program under Stride instead (stride trace --launch PROGRAM)`
  if (f.yamaScope === 2 && !f.capSysPtrace)
    return `kernel.yama.ptrace_scope=2 lets only processes with the CAP_SYS_PTRACE capability attach: ${f.uid === 0 ? 'give Stride that capability' : `run Stride with sudo, or give node the capability with "${SETCAP}"`}`
  if (f.yamaScope === 1 && !f.capSysPtrace)
    return `kernel.yama.ptrace_scope=1 lets a process be attached only by its ancestors: allow attaching with "sudo sysctl kernel.yama.ptrace_scope=0" (until reboot), or give node the capability with "${SETCAP}"`
  if (!f.capSysPtrace)
    return f.uid === 0
      ? `Stride runs as root but without the CAP_SYS_PTRACE capability (a container's default), and ${it} is not dumpable: give Stride that capability (docker run --cap-add=SYS_PTRACE)`
      : `${it} is not dumpable (a set-user-ID program, or one that made itself so with prctl): only a tracer with CAP_SYS_PTRACE may attach, so run Stride with sudo`
  // The capability is there and the kernel still refuses: nothing Stride's user can change here.
  return `the kernel refuses it even though Stride has CAP_SYS_PTRACE${f.pid === 1 ? " (process 1 is this system's init)" : ''}: a security module (SELinux, AppArmor, lockdown) or another user namespace protects it; pick another process`
}
