#!/usr/bin/env node
// Builds the bundled examples (resources/examples/*.c) with `cc -g -O1` into
// resources/examples/build/. Skips a binary that is newer than its sources.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const dir = join(import.meta.dirname, '..', 'resources', 'examples')
const out = join(dir, 'build')
mkdirSync(out, { recursive: true })
const cc = process.env.CC || 'cc'
const sources = readdirSync(dir).filter((f) => f.endsWith('.c'))
const newest = Math.max(...sources.map((f) => statSync(join(dir, f)).mtimeMs))
let failed = false
for (const file of sources) {
  const name = file.replace(/\.c$/, '')
  const bin = join(out, name)
  if (existsSync(bin) && statSync(bin).mtimeMs >= newest) continue
  const r = spawnSync(cc, ['-g', '-O1', '-o', bin, join(dir, file)], { stdio: 'inherit' })
  if (r.error || r.status !== 0) {
    console.error(`examples: could not build ${file} with "${cc} -g -O1" (${r.error?.message ?? `exit ${r.status}`}); install gcc or set CC.`)
    failed = true
  }
}
if (failed) process.exit(1)
console.log(`examples: ${sources.length} built in ${out}`)
