/**
 * The part of the `frida` npm package (17.x) Stride uses, as a small typed interface, and
 * its lazy loader. `frida` is ESM and loads its native binding on import, and it is an
 * optional dependency whose binary cannot always be installed: nothing imports it until a
 * trace or a process list actually needs it, and then only in the process's Frida owner
 * thread (frida-owner.ts). Tests inject a double of `FridaModule`.
 */
import { StrideError } from '../../../shared/errors'

export interface FridaSignal<H extends (...args: never[]) => void> {
  connect(handler: H): void
  disconnect(handler: H): void
}

export type FridaMessage =
  | { type: 'send'; payload: unknown }
  | { type: 'error'; description: string; stack?: string; fileName?: string; lineNumber?: number }

export interface FridaScript {
  readonly message: FridaSignal<(message: FridaMessage, data: Buffer | null) => void>
  load(): Promise<void>
  unload(): Promise<void>
  post(message: unknown, data?: Buffer | null): void
}

/** Why a session ended (frida-core's SessionDetachReason, as frida-node spells it). */
export type FridaDetachReason = 'application-requested' | 'process-replaced' | 'process-terminated' | 'connection-terminated' | 'device-lost' | string

export interface FridaSession {
  readonly detached: FridaSignal<(reason: FridaDetachReason, crash: unknown) => void>
  createScript(source: string): Promise<FridaScript>
  detach(): Promise<void>
}

export interface FridaProcess {
  pid: number
  name: string
  parameters?: { user?: string; path?: string; argv?: string[] } & Record<string, unknown>
}

export interface FridaSpawnOptions {
  argv?: string[]
  cwd?: string
  env?: Record<string, string>
  stdio?: 'inherit' | 'pipe'
}

export interface FridaDevice {
  /** A spawned program's output (spawn's stdio 'pipe'): its pid, the fd (1 or 2) and the bytes; empty bytes at the stream's end. */
  readonly output: FridaSignal<(pid: number, fd: number, data: Buffer) => void>
  enumerateProcesses(options?: { scope?: unknown }): Promise<FridaProcess[]>
  attach(pid: number): Promise<FridaSession>
  spawn(program: string | string[], options?: FridaSpawnOptions): Promise<number>
  resume(pid: number): Promise<void>
  kill(pid: number): Promise<void>
}

export interface FridaModule {
  getLocalDevice(): Promise<FridaDevice>
  /** frida.Scope.Full: process parameters (user, path, argv) included. */
  readonly Scope?: { Full?: unknown }
}

export const FRIDA_INSTALL_HINT = 'Frida is not installed: install it with "npm install frida" (Frida 17 or later) in the Stride folder, then start the trace again.'

/** Imports `frida` on first use; a missing or broken install becomes the install hint. */
export async function loadFrida(importer: () => Promise<unknown> = () => import('frida' as string)): Promise<FridaModule> {
  let mod: unknown
  try {
    mod = await importer()
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    const missing = /Cannot find (module|package)|ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND/.test(why)
    throw new StrideError(missing ? FRIDA_INSTALL_HINT : `Frida is installed but does not load (${why.split('\n')[0]}); reinstall it with "npm install frida".`, 'tool-missing')
  }
  const m = (mod as { default?: FridaModule }).default ?? (mod as FridaModule)
  if (typeof m?.getLocalDevice !== 'function') throw new StrideError('The installed "frida" package has no getLocalDevice(); install Frida 17 or later with "npm install frida".', 'tool-missing')
  return m
}
