// The whole code base type-checks under strict TypeScript, with Electron's own types for the
// main process and preload (no hand-written shim). Where npm dropped the optional `electron`
// package (its binary could not be downloaded and ELECTRON_SKIP_BINARY_DOWNLOAD was not set),
// the Electron entry cannot be checked: that part says so and skips.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const electronTypes = existsSync(join(root, 'node_modules', 'electron', 'electron.d.ts'))

function typecheck(project: string): string {
  const r = spawnSync(process.execPath, [tsc, '-p', project, '--noEmit', '--pretty', 'false'], { cwd: root, encoding: 'utf8' })
  return r.status === 0 ? '' : `${r.stdout}${r.stderr}`.trim()
}

describe('type check (strict)', () => {
  it.skipIf(!electronTypes)(
    electronTypes ? 'main, preload, shared, e2e and benches' : 'main, preload, shared: skipped, electron types not installed (ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm install)',
    () => expect(typecheck('tsconfig.node.json')).toBe(''),
    120_000
  )
  it('renderer', () => expect(typecheck('tsconfig.web.json')).toBe(''), 120_000)
  it('Frida agent', () => expect(typecheck('tsconfig.agent.json')).toBe(''), 120_000)
})
