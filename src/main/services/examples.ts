/**
 * The bundled examples (resources/examples/examples.json), built on first use with cc -g -O1
 * (as `npm run examples` builds them all): a card that is not built yet says that picking it
 * builds it, or, where no C compiler is found, why it cannot be built and the fix.
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import type { ExampleProgram } from '../../shared/domain'
import { examplesDir, which } from '../paths'

interface CatalogEntry {
  name: string
  title: string
  description: string
  source: string
  functions: string[]
  suggestedCache: ExampleProgram['suggestedCache']
}

/** The C compiler the examples are built with: $CC (its first word) or cc. */
function compiler(): string {
  return (process.env.CC || 'cc').trim().split(/\s+/)[0] || 'cc'
}

/** Null when the compiler can be run, else the one line that says what is missing and the fix. */
export function compilerProblem(): string | null {
  const cc = compiler()
  let found: string | null
  if (cc.includes('/')) {
    found = isAbsolute(cc) || existsSync(cc) ? cc : null
    try {
      if (found) accessSync(found, constants.X_OK)
    } catch {
      found = null
    }
  } else found = which(cc)
  if (found) return null
  return process.env.CC
    ? `Cannot be built here: needs a C compiler, and CC=${process.env.CC} was not found (fix CC, or unset it and apt-get install gcc).`
    : 'Cannot be built here: needs cc (apt-get install gcc).'
}

export function listExamples(): ExampleProgram[] {
  const dir = examplesDir()
  const catalog = JSON.parse(readFileSync(join(dir, 'examples.json'), 'utf8')) as CatalogEntry[]
  let problem: string | null | undefined
  return catalog.map((e) => {
    const program = join(dir, 'build', e.name)
    const built = existsSync(program)
    if (!built && problem === undefined) problem = compilerProblem()
    const buildable = !built && !problem
    const buildNote = built ? null : (problem ?? `Not built yet: picking it builds it (${compiler()} -g -O1).`)
    return { ...e, program, source: join(dir, e.source), built, buildable, buildNote }
  })
}

/** Builds an example if its binary is missing or older than its source. Returns an error text or null. */
export function ensureExampleBuilt(example: ExampleProgram): string | null {
  const fresh = example.built && statSync(example.program).mtimeMs >= statSync(example.source).mtimeMs
  if (fresh) return null
  const problem = compilerProblem()
  if (problem) return `The example ${example.name} is not built. ${problem}`
  mkdirSync(join(examplesDir(), 'build'), { recursive: true })
  const cc = process.env.CC || 'cc'
  const r = spawnSync(cc, ['-g', '-O1', '-o', example.program, example.source], { encoding: 'utf8', shell: false })
  if (r.error || r.status !== 0)
    return `Could not build the example ${example.name} with "${cc} -g -O1": ${r.error?.message ?? r.stderr.trim().split('\n')[0]}; install gcc (apt-get install gcc) or set CC.`
  return null
}
