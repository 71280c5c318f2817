/**
 * Loads Stride's native compute core (resources/native/core, Node-API): the one place that
 * knows where the built module lives. The parts (simulator, trace codec) type their own
 * exports; this file only finds, loads and checks the module. Loads unchanged in Electron's
 * main process and in worker threads (Node-API is ABI-stable).
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { StrideError } from '../../shared/errors'
import { projectRoot } from '../paths'

/** Must equal STRIDE_CORE_ABI in resources/native/core/src/addon.c. */
export const NATIVE_CORE_ABI = 24

export interface NativeCoreModule {
  abi(): number
  /** The parts' exports, typed by their own wrappers. */
  [name: string]: unknown
}

let loaded: NativeCoreModule | null = null

export function nativeCorePath(): string {
  return join(projectRoot(), 'resources', 'native', 'core', 'build', 'Release', 'stride_core.node')
}

/** The loaded core; throws one clear StrideError when it is not built or is stale. */
export function nativeCore(): NativeCoreModule {
  if (loaded) return loaded
  const file = nativeCorePath()
  const fix = 'run "npm install" (or "node scripts/build-native.mjs"); it needs cc, make, python3 and libbrotli-dev'
  if (!existsSync(file)) throw new StrideError(`Stride's native core is not built (${file} is missing): ${fix}.`, 'tool-missing')
  let mod: NativeCoreModule
  try {
    mod = createRequire(join(projectRoot(), 'package.json'))(file) as NativeCoreModule
  } catch (e) {
    throw new StrideError(`Stride's native core at ${file} does not load (${e instanceof Error ? e.message.split('\n')[0] : String(e)}): ${fix}.`, 'tool-missing')
  }
  if (typeof mod.abi !== 'function' || mod.abi() !== NATIVE_CORE_ABI)
    throw new StrideError(`Stride's native core at ${file} is from another version of Stride: ${fix}.`, 'tool-missing')
  return (loaded = mod)
}
