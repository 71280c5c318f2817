/**
 * One Frida trace written to a session, as the Valgrind trace worker writes one: the
 * session writer and the correlator fed in trace order, then points and variables named,
 * loops stored, metadata written. Any failure keeps what reached the file, marked
 * partial. Runs in the attach worker; tests call it in-process with a Frida double.
 */
import { readFileSync } from 'node:fs'
import { StrideError } from '../../../shared/errors'
import { Correlator } from '../../correlate/correlator'
import { SessionWriter } from '../../store/session-writer'
import type { AttachWorkerInput, AttachWorkerMessage } from './attach-protocol'
import { FridaTrace, processExecutable, type FridaTraceDeps } from './frida-tracer'
import { parseCmdline } from './process-list'
import { finishTracedSession, programDataLayout } from '../session-symbols'
import { OutputBatcher } from '../output-batcher'

export interface AttachSessionControl {
  /** Set once the trace runs: stop it (cancel). */
  onTrace?(trace: FridaTrace): void
}

function describeTarget(input: AttachWorkerInput): { program: string; args: string[] } {
  if (input.target.kind === 'spawn') return { program: input.target.program, args: input.target.args }
  const program = processExecutable(input.target.pid)
  let argv: string[] = []
  try {
    argv = parseCmdline(readFileSync(`/proc/${input.target.pid}/cmdline`)).split(' ')
  } catch {
    // gone: FridaTrace says so
  }
  return { program, args: argv.slice(1) }
}

export async function recordAttachSession(input: AttachWorkerInput, post: (m: AttachWorkerMessage) => void, control: AttachSessionControl, deps: FridaTraceDeps): Promise<void> {
  let writer: SessionWriter | null = null
  // A launched program's output: batched on its way out, ahead of the trace's end.
  const output = new OutputBatcher((batch) => post({ type: 'output', ...batch }))
  try {
    const { program, args } = describeTarget(input)
    writer = new SessionWriter(input.out, { program, args, backend: 'frida', functions: input.functions, createdAt: new Date().toISOString() })
    writer.writeMeta({ sampling: input.sampling, target: input.target.kind === 'attach' ? { attach: input.target.pid } : { spawn: program } })
    const correlator = new Correlator(await programDataLayout(program).catch(() => null))
    const trace = new FridaTrace(input, writer, (p) => post({ type: 'progress', phase: 'tracing', events: p.events, total: input.maxEvents, functions: p.functions }), correlator, deps, {
      onOutput: (stream, bytes) => output.write(stream, bytes),
      onDetached: (detached) => post({ type: 'progress', phase: 'tracing', events: writer?.eventCount ?? 0, total: input.maxEvents, functions: [], detached })
    })
    control.onTrace?.(trace)
    const outcome = await trace.run().finally(() => output.flush())
    post({ type: 'progress', phase: 'symbolizing', events: writer.eventCount, total: null, functions: outcome.functions })
    const { partial, message } = await finishTracedSession(writer, correlator, outcome, {
      heapTracked: input.trackHeap,
      pid: outcome.pid,
      functionCounts: outcome.functions,
      untraced: outcome.untraced,
      lostRecords: outcome.lost,
      targetAliveAfterDetach: outcome.targetAlive,
      // As the Valgrind backend's sessions say them (stride info: exit, recorder).
      programExit: outcome.programExit,
      threads: outcome.threads,
      recorder: 'frida'
    })
    post({
      type: 'trace-done',
      session: writer.sessionPath ?? input.out,
      events: writer.eventCount,
      partial,
      stopReason: outcome.stopReason,
      message,
      pid: outcome.pid,
      program: outcome.program,
      targetAlive: outcome.targetAlive,
      functions: outcome.functions
    })
  } catch (e) {
    // Keep whatever reached the file, marked partial, and say why.
    const message = e instanceof Error ? e.message : String(e)
    const kept = writer !== null && writer.eventCount > 0
    if (writer) {
      // Nothing recorded: leave no empty session behind (and never touch an older one).
      if (kept) writer.finish({ partial: true, stopReason: 'error', stopMessage: message, hasDebugInfo: false, debugInfoHint: null })
      else writer.discard()
    }
    post({ type: 'error', message, code: e instanceof StrideError ? e.code : 'internal', session: kept ? (writer?.sessionPath ?? input.out) : null })
  }
}

