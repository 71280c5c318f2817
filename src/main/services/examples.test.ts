import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { examplesDir } from '../paths'
import { compilerProblem, ensureExampleBuilt, listExamples } from './examples'

const saved = { STRIDE_EXAMPLES: process.env.STRIDE_EXAMPLES, CC: process.env.CC, PATH: process.env.PATH }
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
})

/** The catalog alone, no build/ folder. */
function unbuilt(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stride-examples-'))
  copyFileSync(join(examplesDir(), 'examples.json'), join(dir, 'examples.json'))
  copyFileSync(join(examplesDir(), 'conflict.c'), join(dir, 'conflict.c'))
  return dir
}

describe('bundled examples not built yet', () => {
  it('a card says picking it builds it where a compiler is found', () => {
    process.env.STRIDE_EXAMPLES = unbuilt()
    process.env.CC = process.execPath // any runnable file stands for a compiler here
    const conflict = listExamples().find((e) => e.name === 'conflict')!
    expect(conflict).toMatchObject({ built: false, buildable: true })
    expect(conflict.buildNote).toBe(`Not built yet: picking it builds it (${process.execPath} -g -O1).`)
  })

  it('says why not, in one line, where none is (and a build says the same)', () => {
    process.env.STRIDE_EXAMPLES = unbuilt()
    delete process.env.CC
    process.env.PATH = mkdtempSync(join(tmpdir(), 'stride-nobin-'))
    expect(compilerProblem()).toBe('Cannot be built here: needs cc (apt-get install gcc).')
    const conflict = listExamples().find((e) => e.name === 'conflict')!
    expect(conflict).toMatchObject({ built: false, buildable: false, buildNote: 'Cannot be built here: needs cc (apt-get install gcc).' })
    expect(ensureExampleBuilt(conflict)).toBe('The example conflict is not built. Cannot be built here: needs cc (apt-get install gcc).')
    process.env.CC = '/nonexistent/cc'
    expect(compilerProblem()).toMatch(/^Cannot be built here: needs a C compiler, and CC=\/nonexistent\/cc was not found/)
  })
})
