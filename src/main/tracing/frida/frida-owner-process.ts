/**
 * The Frida owner process (out/main/frida-owner-process.js): the one process, forked from
 * Stride's, whose main thread loads `frida`. A worker thread will not do: a thread that
 * loaded the binding crashes Node when it is torn down (at exit, or on terminate). It
 * serves the parent's requests and exits when the parent goes.
 */
import type { FridaOwnerRequest } from './attach-protocol'
import { FridaOwnerHost } from './frida-owner-host'

const host = new FridaOwnerHost((reply) => process.send!(reply))
process.on('message', (request: FridaOwnerRequest) => host.handle(request))
process.on('disconnect', () => process.exit(0))
