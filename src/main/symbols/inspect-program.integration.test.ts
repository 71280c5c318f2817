/** The function pickers' list shows C++ functions demangled and keeps the linked name to trace. */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { example, tempDir } from '../testing/cli-runner'
import { inspectProgram } from './inspect-program'

it('lists C++ functions demangled, C functions as they are', async () => {
  const out = join(tempDir('inspect'), 'cxx')
  const r = spawnSync('g++', ['-g', '-O2', '-o', out, join(__dirname, '..', 'correlate', 'fixtures', 'outside', 'cxx-containers.cpp')], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  const { functions } = await inspectProgram(out)
  const crunch = functions.find((f) => f.demangled?.startsWith('crunch('))
  expect(crunch?.name).toMatch(/^_Z6crunch/)
  expect(functions.find((f) => f.name === 'main')?.demangled).toBeUndefined()
})

it('lists functions only: no data symbol nm lists as a weak text symbol (data_start)', async () => {
  const names = (await inspectProgram(example('mult'))).functions.map((f) => f.name)
  expect(names).toContain('do_mult')
  expect(names).toContain('main')
  expect(names).not.toContain('data_start')
  expect(names).not.toContain('_IO_stdin_used')
})
