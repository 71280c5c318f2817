#!/usr/bin/env node
// Bundles the Frida agent (src/agent/stride-agent.ts, with its CModule C embedded as text)
// into one plain script, out/agent/stride-agent.js, that the host loads with
// session.createScript. frida-compile is not needed (and needs Frida's native module).
import { build } from 'esbuild'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = join(import.meta.dirname, '..')
export const AGENT_ENTRY = join(root, 'src', 'agent', 'stride-agent.ts')
export const AGENT_OUT = join(root, 'out', 'agent', 'stride-agent.js')

/** esbuild options for the agent; `write: false` returns the text instead (tests). */
export function agentBuildOptions(write = true) {
  return {
    entryPoints: [AGENT_ENTRY],
    bundle: true,
    format: 'iife',
    // Frida 17's default runtime is QuickJS: ES2022 syntax, no Node or DOM globals.
    target: 'es2022',
    platform: 'neutral',
    loader: { '.c': 'text', '.h': 'text' },
    outfile: AGENT_OUT,
    write,
    logLevel: write ? 'info' : 'silent',
    legalComments: 'none'
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await build(agentBuildOptions())
}
