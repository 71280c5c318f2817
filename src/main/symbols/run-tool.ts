/** Runs a binutils command and returns stdout; turns a missing tool into an actionable error. */
import { spawn } from 'node:child_process'
import { StrideError } from '../../shared/errors'

export function runTool(cmd: string, args: string[], stdin?: string, env?: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : process.env })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        e.code === 'ENOENT'
          ? new StrideError(`"${cmd}" is not installed; install ${cmd === 'gdb' ? 'gdb' : 'binutils'} (Debian: apt-get install ${cmd === 'gdb' ? 'gdb' : 'binutils'}).`, 'tool-missing')
          : e
      )
    })
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'))
      else reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code}): ${Buffer.concat(err).toString('utf8').trim().split('\n')[0] ?? ''}`))
    })
    child.stdin.on('error', () => {}) // the tool may exit before reading everything
    child.stdin.end(stdin ?? '')
  })
}
