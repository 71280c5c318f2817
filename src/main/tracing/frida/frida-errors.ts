/**
 * Frida reports failures as plain Errors whose text is all there is to go on (frida-core's
 * messages, as of 17.x). Each one a user can hit is mapped to a StrideError that names the
 * problem and the fix. Pure.
 */
import { StrideError } from '../../../shared/errors'
import { permissionAdvice, type PtraceFacts } from './ptrace-permission'

/** `ptrace`: what the kernel's permission check depends on here (ptrace-permission.ts), read when Frida failed. */
export function fridaError(e: unknown, pid: number | null, program: string | null = null, ptrace: PtraceFacts | null = null): StrideError {
  if (e instanceof StrideError) return e
  const text = e instanceof Error ? e.message : String(e)
  const who = pid !== null ? `process ${pid}` : program ? `"${program}"` : 'the process'
  if (/system restrictions|ptrace|Operation not permitted|permission denied|Unable to access \/proc\/\d+\/mem|access denied/i.test(text))
    return new StrideError(`Permission denied attaching to ${who}: ${ptrace ? permissionAdvice(ptrace) : text.split('\n')[0]!.replace(/\.$/, '')}.`, 'permission-denied')
  if (/Unable to find process|Process not found|No such process|process (?:is )?gone|not found/i.test(text) && pid !== null)
    return new StrideError(`Process ${pid} is gone (it exited or the PID is wrong); pick a running process from the list.`, 'not-found')
  if (/Unable to find executable|No such file|ENOENT/i.test(text))
    return new StrideError(`Cannot launch ${who}: the program was not found; check the path.`, 'not-found')
  if (/unsupported|Unable to inject|incompatible|architecture|wrong ELF class/i.test(text))
    return new StrideError(`Frida cannot instrument ${who}: ${text.replace(/\.$/, '')}. Stride's agent traces x86-64 Linux processes.`, 'target-failed')
  return new StrideError(`Frida failed on ${who}: ${text.split('\n')[0]!.replace(/\.$/, '')}.`, 'target-failed')
}
