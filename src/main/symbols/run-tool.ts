/** Runs a binutils command and returns stdout; turns a missing tool into an actionable error. */
import { StrideError } from '../../shared/errors'
import { startTool, type ToolProcess } from './tool-process'

function missing(cmd: string): StrideError {
  const pkg = cmd === 'gdb' ? 'gdb' : 'binutils'
  return new StrideError(`"${cmd}" is not installed; install ${pkg} (Debian: apt-get install ${pkg}).`, 'tool-missing')
}

export function runTool(cmd: string, args: string[], stdin?: string, env?: Record<string, string>): Promise<string> {
  let child: ToolProcess
  try {
    child = startTool(cmd, args, env ? { ...process.env, ...env } : process.env)
  } catch (e) {
    return Promise.reject((e as NodeJS.ErrnoException).code === 'ENOENT' ? missing(cmd) : e)
  }
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on('data', (b: Buffer) => out.push(b))
  child.stderr.on('data', (b: Buffer) => err.push(b))
  child.stdin.on('error', () => {}) // the tool may exit before reading everything
  child.stdin.end(stdin ?? '')
  return child.exited.then(({ code, signal }) => {
    if (code === 0) return Buffer.concat(out).toString('utf8')
    throw new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}): ${Buffer.concat(err).toString('utf8').trim().split('\n')[0] ?? ''}`)
  })
}
