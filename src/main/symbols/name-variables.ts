/**
 * Gives the correlator's variables their names after the trace: heap contexts after the
 * allocating source line and what its result is assigned to (`particles`, or
 * `heap@list.c:42`), stack locals after themselves (qualified by function when two
 * functions share a name).
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { sourceLocations } from './addr2line'
import { readElf } from './elf-reader'
import type { LoadedModule } from '../tracing/proc-maps'
import type { VariableRecord } from '../correlate/correlator'
import { assignedName, parseLine } from '../correlate/source-expressions'

export interface NamedVariable extends VariableRecord {
  /** Heap: the allocating line (file:line) or module+offset; stack: the function. */
  allocSite: string | null
  module: string | null
}

function sourceLine(file: string, line: number, cache: Map<string, string[] | null>): string | null {
  if (!cache.has(file)) {
    try {
      cache.set(file, readFileSync(file, 'utf8').split('\n'))
    } catch {
      cache.set(file, null)
    }
  }
  return cache.get(file)?.[line - 1] ?? null
}

export async function nameVariables(variables: VariableRecord[], modules: LoadedModule[]): Promise<NamedVariable[]> {
  const files = new Map<string, string[] | null>()
  const named: NamedVariable[] = variables.map((v) => ({ ...v, allocSite: v.kind === 'stack' ? v.function : null, module: null }))
  for (const v of named) {
    if (v.kind !== 'heap' || !v.context?.length) continue
    // The return address points after the call: the call's line is at site - 1.
    const site = v.context[0]! - 1
    const module = modules.find((m) => site >= m.start && site < m.end)
    if (!module) continue
    v.module = module.path
    try {
      const elf = await readElf(module.path)
      const link = site - (elf.relocatable ? module.base : 0)
      const [loc] = elf.hasDebugInfo ? await sourceLocations(module.path, [link]) : [null]
      if (loc?.file && loc.line) {
        v.allocSite = `${loc.file}:${loc.line}`
        const text = sourceLine(loc.file, loc.line, files)
        const root = text ? await parseLine(text) : null
        v.name = (root && assignedName(root)) ?? `heap@${basename(loc.file)}:${loc.line}`
      } else {
        v.allocSite = `${basename(module.path)}+0x${link.toString(16)}`
        v.name = `heap@${v.allocSite}`
      }
    } catch {
      v.allocSite = `${basename(module.path)}+0x${(site - module.base).toString(16)}`
      v.name = `heap@${v.allocSite}`
    }
  }
  // Names must tell variables apart: qualify repeated stack names, number repeated heap names.
  const seen = new Map<string, number>()
  for (const v of named) seen.set(v.name, (seen.get(v.name) ?? 0) + 1)
  const counters = new Map<string, number>()
  for (const v of named) {
    if ((seen.get(v.name) ?? 0) < 2 || v.kind === 'unknown') continue
    if (v.kind === 'stack' && v.function) v.name = `${v.function}.${v.name}`
    else {
      const n = (counters.get(v.name) ?? 0) + 1
      counters.set(v.name, n)
      if (n > 1) v.name = `${v.name}#${n}`
    }
  }
  return named
}
