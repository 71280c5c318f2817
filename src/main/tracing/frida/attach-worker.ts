/** Worker thread: one Frida trace (attach or spawn), written to a session like a Valgrind one. */
import { parentPort, workerData } from 'node:worker_threads'
import type { AttachWorkerCommand, AttachWorkerInput, AttachWorkerMessage } from './attach-protocol'
import { recordAttachSession } from './attach-session'
import type { FridaTrace } from './frida-tracer'

const input = workerData as AttachWorkerInput
let trace: FridaTrace | null = null
let stopAsked = false
parentPort!.on('message', (m: AttachWorkerCommand) => {
  if (m.type !== 'stop') return
  stopAsked = true
  trace?.stop('cancelled', 'cancelled by the user')
})

void recordAttachSession(input, (m: AttachWorkerMessage) => parentPort!.postMessage(m), {
  onTrace(t) {
    trace = t
    if (stopAsked) t.stop('cancelled', 'cancelled by the user')
  }
})
