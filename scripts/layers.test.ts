// Stride's layering, as the folder READMEs state it, checked by dependency-cruiser with the
// rules in .dependency-cruiser.cjs: the renderer never reaches main, src/shared imports none
// of the three sides, the pure cores (compress, simulate, correlate, analysis) do no I/O and
// know no store, worker or tracer, the store and the tracers know no runtime, and no cycles.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')

describe('layering', () => {
  it('src/ has no dependency that crosses a layer or closes a cycle', () => {
    const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')
    const r = spawnSync(process.execPath, [cli, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root, encoding: 'utf8' })
    const out = `${r.stdout}${r.stderr}`
    // dependency-cruiser exits non-zero and lists each crossing as "error <rule>: from → to".
    const crossings = out.split('\n').filter((l) => /^\s*error\s/.test(l) || /^\s+\S.*→/.test(l))
    expect(crossings, 'dependency-cruiser found crossings').toEqual([])
    expect(out).toMatch(/no dependency violations found/)
    expect(r.status).toBe(0)
  }, 120_000)
})
