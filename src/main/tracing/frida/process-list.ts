/**
 * Running processes for the attach picker: Frida's enumeration when Frida is installed,
 * otherwise /proc (name, PID, user, command line) and the install hint, so the picker
 * works everywhere and says at once that Frida is missing. The parsers are pure; the readers are thin.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { StrideError } from '../../../shared/errors'
import type { ProcessEntry, ProcessList } from '../../../shared/domain'
import type { FridaModule } from './frida-api'

/** Pure: name and real uid from a /proc/PID/status text. */
export function parseStatus(text: string): { name: string; uid: number } | null {
  const name = /^Name:\t(.*)$/m.exec(text)?.[1]
  const uid = /^Uid:\t(\d+)/m.exec(text)?.[1]
  return name === undefined || uid === undefined ? null : { name, uid: Number(uid) }
}

/** Pure: a /proc/PID/cmdline (NUL-separated) as one line. */
export function parseCmdline(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/\0+$/, '').split('\0').join(' ')
}

/** Pure: uid -> user name from /etc/passwd. */
export function parsePasswd(text: string): Map<number, string> {
  const out = new Map<number, string>()
  for (const line of text.split('\n')) {
    const f = line.split(':')
    if (f.length >= 3 && /^\d+$/.test(f[2]!)) out.set(Number(f[2]), f[0]!)
  }
  return out
}

function userNames(): Map<number, string> {
  try {
    return parsePasswd(readFileSync('/etc/passwd', 'utf8'))
  } catch {
    return new Map()
  }
}

/** Reads /proc; processes that vanish while being read are skipped. */
export function listProcFs(procRoot = '/proc', self = process.pid): ProcessEntry[] {
  const users = userNames()
  const out: ProcessEntry[] = []
  for (const dir of readdirSync(procRoot)) {
    if (!/^\d+$/.test(dir)) continue
    const pid = Number(dir)
    try {
      const status = parseStatus(readFileSync(`${procRoot}/${dir}/status`, 'utf8'))
      if (!status) continue
      const cmd = parseCmdline(readFileSync(`${procRoot}/${dir}/cmdline`))
      out.push({ pid, name: status.name, user: users.get(status.uid) ?? String(status.uid), command: cmd || `[${status.name}]`, self: pid === self })
    } catch {
      // gone between readdir and read
    }
  }
  return out.sort((a, b) => b.pid - a.pid)
}

/** Frida's view when it loads, completed from /proc (user, full command line); else /proc alone. */
export async function listProcesses(frida: () => Promise<FridaModule>): Promise<ProcessList> {
  const fromProc = listProcFs()
  let mod: FridaModule
  try {
    mod = await frida()
  } catch (e) {
    return { processes: fromProc, source: 'proc', fridaMissing: e instanceof Error ? e.message : String(e) }
  }
  try {
    const device = await mod.getLocalDevice()
    const listed = await device.enumerateProcesses(mod.Scope?.Full !== undefined ? { scope: mod.Scope.Full } : {})
    const byPid = new Map(fromProc.map((p) => [p.pid, p]))
    const processes = listed
      .map((p): ProcessEntry => {
        const proc = byPid.get(p.pid)
        const argv = p.parameters?.argv
        return {
          pid: p.pid,
          name: p.name,
          user: p.parameters?.user ?? proc?.user ?? '?',
          command: proc?.command ?? (argv ? argv.join(' ') : (p.parameters?.path ?? p.name)),
          self: p.pid === process.pid
        }
      })
      .sort((a, b) => b.pid - a.pid)
    return { processes, source: 'frida', fridaMissing: null }
  } catch {
    // Frida loads but cannot enumerate: /proc still lists; traces will say what fails.
    return { processes: fromProc, source: 'proc', fridaMissing: null }
  }
}

/** Pure: the picker's filter: every word must appear in the PID, name, user or command. */
export function filterProcesses(list: ProcessEntry[], filter: string): ProcessEntry[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return list
  return list.filter((p) => {
    const hay = `${p.pid} ${p.name} ${p.user} ${p.command}`.toLowerCase()
    return words.every((w) => hay.includes(w))
  })
}

/**
 * Pure: the one process a name designates (its /proc name, or its executable's base name,
 * Stride's own process excepted); none or several is an error that says what to give.
 */
export function processByName(list: ProcessEntry[], name: string): ProcessEntry {
  const base = (command: string) => command.split(' ')[0]!.split('/').pop()
  const found = list.filter((p) => !p.self && (p.name === name || base(p.command) === name))
  if (found.length === 1) return found[0]!
  if (found.length === 0) throw new StrideError(`No running process is named "${name}"; give its PID (see ps, or the Attach dialog's list).`, 'not-found')
  const pids = found.map((p) => p.pid).join(', ')
  throw new StrideError(`${found.length} processes are named "${name}" (PIDs ${pids}); give one of them by PID.`, 'invalid-input')
}
