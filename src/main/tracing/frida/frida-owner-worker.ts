/**
 * The Frida owner thread (out/main/frida-owner-worker.js): the one thread of the process
 * that loads `frida`. It lives as long as the process; the main thread sends it requests.
 */
import { parentPort } from 'node:worker_threads'
import type { FridaOwnerRequest } from './attach-protocol'
import { FridaOwnerHost } from './frida-owner-host'

const host = new FridaOwnerHost((reply) => parentPort!.postMessage(reply))
parentPort!.on('message', (request: FridaOwnerRequest) => host.handle(request))
