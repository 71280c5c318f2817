/** The bundled examples (resources/examples/examples.json), built on first use with cc -g -O1. */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { ExampleProgram } from '../../shared/domain'
import { examplesDir } from '../paths'

interface CatalogEntry {
  name: string
  title: string
  description: string
  source: string
  functions: string[]
  suggestedCache: ExampleProgram['suggestedCache']
}

export function listExamples(): ExampleProgram[] {
  const dir = examplesDir()
  const catalog = JSON.parse(readFileSync(join(dir, 'examples.json'), 'utf8')) as CatalogEntry[]
  return catalog.map((e) => {
    const program = join(dir, 'build', e.name)
    return { ...e, program, source: join(dir, e.source), built: existsSync(program) }
  })
}

/** Builds an example if its binary is missing or older than its source. Returns an error text or null. */
export function ensureExampleBuilt(example: ExampleProgram): string | null {
  const fresh = example.built && statSync(example.program).mtimeMs >= statSync(example.source).mtimeMs
  if (fresh) return null
  mkdirSync(join(examplesDir(), 'build'), { recursive: true })
  const cc = process.env.CC || 'cc'
  const r = spawnSync(cc, ['-g', '-O1', '-o', example.program, example.source], { encoding: 'utf8' })
  if (r.error || r.status !== 0)
    return `Could not build the example ${example.name} with "${cc} -g -O1": ${r.error?.message ?? r.stderr.trim().split('\n')[0]}; install gcc (apt-get install gcc) or set CC.`
  return null
}
