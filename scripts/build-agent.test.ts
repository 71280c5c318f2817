/** The Frida agent bundle: builds, is one plain script, and carries the whole CModule source. */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { agentBuildOptions } from './build-agent.mjs'

describe('agent bundle', () => {
  it('is one self-contained script with the C embedded, valid as plain JavaScript', async () => {
    const result = await build(agentBuildOptions(false))
    const text = result.outputFiles![0]!.text
    expect(text).not.toMatch(/^\s*(import|export)\s/m)
    expect(text).not.toMatch(/\brequire\(/)
    // Every C file arrives verbatim, in the order CModule needs.
    const dir = join(__dirname, '..', 'src', 'agent', 'cmodule')
    const order = ['STRIDE_CMODULE_H', 'stride_plan_insn(const cs_insn', 'stride_drain(StrideState', 'void transform(GumStalkerIterator'].map((s) => text.indexOf(s))
    expect(order.every((i) => i > 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    expect(readFileSync(join(dir, 'ring.c'), 'utf8').length).toBeGreaterThan(1000)
    // Parses as a script (compiled, not run: Frida's globals do not exist here).
    expect(() => new Function(text)).not.toThrow()
  })

  it('type-checks against @types/frida-gum (tsconfig.agent.json)', () => {
    const root = join(__dirname, '..')
    const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.agent.json'), '--noEmit'], { encoding: 'utf8' })
    expect(r.stdout + r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})
