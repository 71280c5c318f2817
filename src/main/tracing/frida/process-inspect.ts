/**
 * A process's modules (from /proc/PID/maps) and a module's functions (from its ELF symbols
 * and debug lines, src/main/symbols/), without Frida. Functions are ordered hottest guess
 * first: the program's own functions with source lines, deeper loop nests first, then
 * larger ones; runtime stubs last.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { StrideError } from '../../../shared/errors'
import type { ProcessFunction, ProcessInspection, ProcessModule } from '../../../shared/domain'
import { inspectProgram } from '../../symbols/inspect-program'
import { readLoops, type Loop } from '../../symbols/loops'
import { ModuleMap } from '../proc-maps'
import { processExecutable } from './frida-tracer'

const RUNTIME = /^(_start|_init|_fini|frame_dummy|register_tm_clones|deregister_tm_clones|__do_global_dtors_aux|__libc_csu_(init|fini))$/

/** Pure: deepest loop nest per function name. */
export function loopDepths(loops: Loop[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const l of loops) out.set(l.function, Math.max(out.get(l.function) ?? 0, l.depth + 1))
  return out
}

/** Pure: hottest guess first. */
export function rankFunctions(functions: ProcessFunction[]): ProcessFunction[] {
  return [...functions].sort(
    (a, b) =>
      Number(RUNTIME.test(a.name)) - Number(RUNTIME.test(b.name)) ||
      Number(!a.file) - Number(!b.file) ||
      b.loopDepth - a.loopDepth ||
      b.size - a.size ||
      a.name.localeCompare(b.name)
  )
}

export async function inspectProcess(pid: number, module: string | null): Promise<ProcessInspection> {
  const exe = processExecutable(pid)
  const maps = new ModuleMap()
  if (!maps.refresh(pid)) throw new StrideError(`Process ${pid} is gone (it exited or the PID is wrong); pick a running process from the list.`, 'not-found')
  const modules: ProcessModule[] = maps
    .all()
    .filter((m) => !m.path.startsWith('/memfd:') && !m.path.startsWith('/dev/'))
    .map((m) => ({ path: m.path, base: `0x${m.base.toString(16)}`, size: m.end - m.start, main: m.path === exe }))
  const chosen = module ?? exe
  if (!modules.some((m) => m.path === chosen)) throw new StrideError(`"${chosen}" is not loaded in process ${pid}; pick one of its modules.`, 'not-found')
  const symbols = await inspectProgram(chosen)
  const depths = loopDepths(await readLoops(chosen).catch(() => []))
  const functions = rankFunctions(symbols.functions.filter((f) => f.size > 0).map((f) => ({ ...f, loopDepth: depths.get(f.name) ?? 0 })))
  let name = basename(exe)
  try {
    name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || name
  } catch {
    // keep the executable's name
  }
  return { pid, name, module: chosen, hasDebugInfo: symbols.hasDebugInfo, debugInfoHint: symbols.debugInfoHint, modules, functions }
}
