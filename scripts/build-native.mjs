#!/usr/bin/env node
// Builds Stride's native compute core (resources/native/core, Node-API, plain C) with node-gyp
// against this machine's Node headers (npm's own node-gyp; npm config supplies nodedir).
// Runs at `npm install` (postinstall) and before every `npm run build`; skips when the built
// module is newer than every source. Needs cc, make, python3 and libbrotli-dev (see README).
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { nativeBuildHint } from './native-build-hint.mjs'

const core = join(import.meta.dirname, '..', 'resources', 'native', 'core')
const built = join(core, 'build', 'Release', 'stride_core.node')

function newestSource(dir) {
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p))
    else if (/\.(c|h)$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

const newest = Math.max(newestSource(join(core, 'src')), statSync(join(core, 'binding.gyp')).mtimeMs, statSync(join(core, 'list-sources.js')).mtimeMs)
if (!process.argv.includes('--force') && existsSync(built) && statSync(built).mtimeMs >= newest) process.exit(0)

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    join(import.meta.dirname, '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')
  ]
  return candidates.find((c) => c && existsSync(c)) ?? null
}

const gyp = nodeGyp()
if (!gyp) {
  console.error('native core: node-gyp was not found (it ships with npm); reinstall npm or run "npm install -g node-gyp".')
  process.exit(1)
}
// Under npm the config reaches node-gyp as npm_config_* variables; run by hand, ask npm for
// the machine's nodedir so node-gyp never tries to download headers.
function nodedir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir
  const q = spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' })
  const v = q.status === 0 ? q.stdout.trim() : ''
  return v && v !== 'undefined' && v !== 'null' ? v : null
}
const dir = nodedir()
const args = [gyp, 'rebuild', '--release', `--directory=${core}`, ...(dir ? [`--nodedir=${dir}`] : [])]
const r = spawnSync(process.execPath, args, { encoding: 'utf8' })
if (r.status !== 0) {
  const out = `${r.stdout}\n${r.stderr}`
  const hint = nativeBuildHint(out)
  process.stderr.write(out.split('\n').filter((l) => /error|Error/.test(l)).slice(0, 12).join('\n') + '\n')
  console.error(`native core: the build failed: ${hint}.`)
  process.exit(1)
}
console.log(`native core: built ${built}`)
