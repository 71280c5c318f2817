/**
 * Starts a target outside Node's child tracking (setsid + a shell's background job), as a
 * user's program would be: Frida's attach waits for a stop signal that Node's own child
 * handling would take from a direct child. Tests only.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const started: number[] = []

/** Starts `program args` detached; resolves with its PID once its executable is mapped. */
export async function startDetached(program: string, args: string[] = []): Promise<number> {
  const out = execFileSync('setsid', ['sh', '-c', '"$0" "$@" >/dev/null 2>&1 </dev/null & echo $!', program, ...args], { encoding: 'utf8' })
  const pid = Number(out.trim())
  started.push(pid)
  for (let i = 0; i < 200; i++) {
    try {
      if (readFileSync(`/proc/${pid}/maps`, 'utf8').includes(program)) return pid
    } catch {
      // not there yet, or already gone
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`${program} did not start`)
}

/** Kills every target started here. */
export function killDetached(): void {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}
