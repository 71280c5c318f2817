#!/usr/bin/env node
// Keeps better-sqlite3 usable in both runtimes. Node (CLI, web mode, tests) loads
// node_modules/better-sqlite3 as npm installed it; Electron has another ABI, so it gets its
// own copy under .electron-native/, rebuilt for Electron, and the path of that binary is
// written to .electron-native/binding.json for the database opener (see scripts/README.md).
// Rebuilding node_modules/better-sqlite3 in place, as electron-rebuild normally does,
// would break the CLI and the tests.
//
// Usage: node scripts/electron-native.mjs [--force]
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const PROJECT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..')
export const NATIVE_DIR_NAME = '.electron-native'
const MODULE = 'better-sqlite3'

function projectRequire(projectDir) {
  return createRequire(join(projectDir, 'package.json'))
}

/** The Electron executable, or null when the optional `electron` package or its binary is missing. */
export function electronBinary(projectDir = PROJECT_DIR) {
  try {
    // The electron package's main export is the path of its downloaded binary.
    const path = projectRequire(projectDir)('electron')
    return typeof path === 'string' && existsSync(path) ? path : null
  } catch {
    return null
  }
}

export function electronVersion(projectDir = PROJECT_DIR) {
  try {
    return projectRequire(projectDir)('electron/package.json').version
  } catch {
    return null
  }
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return null
  }
}

/** Copy the package sources only: its build/ holds the Node-ABI binary we must not reuse. */
function copyModule(source, target) {
  rmSync(target, { recursive: true, force: true })
  mkdirSync(dirname(target), { recursive: true })
  cpSync(source, target, {
    recursive: true,
    filter: (path) => {
      const rel = relative(source, path)
      const top = rel.split(sep)[0]
      return top !== 'build' && top !== 'prebuilds' && top !== 'node_modules'
    }
  })
}

async function defaultRebuild(options, projectDir) {
  let rebuild
  try {
    const entry = projectRequire(projectDir).resolve('@electron/rebuild')
    ;({ rebuild } = await import(pathToFileURL(entry).href))
  } catch (err) {
    throw new Error(`@electron/rebuild is not installed (${err.message}); run \`npm install\` (it is a devDependency).`)
  }
  await rebuild(options)
}

/** Load the binary in Electron running as plain Node: proves the ABI matches, needs no display. */
function defaultVerify(binary, electron) {
  const run = spawnSync(electron, ['-e', `require(${JSON.stringify(binary)})`], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 60_000
  })
  if (run.status !== 0) {
    const why = (run.stderr || run.error?.message || `exit status ${run.status}`).trim().split('\n')[0]
    throw new Error(`the rebuilt ${MODULE} does not load in Electron: ${why}`)
  }
}

/**
 * Make .electron-native/binding.json point at a better-sqlite3 binary built for the
 * installed Electron. Skips the work when the existing one matches (Electron version,
 * better-sqlite3 version, platform, arch) unless `force`. Throws an Error whose message
 * names the problem and the fix.
 */
export async function prepareElectronNative(options = {}) {
  const projectDir = options.projectDir ?? PROJECT_DIR
  const log = options.log ?? ((line) => console.log(line))
  const electron = options.electronVersion ?? electronVersion(projectDir)
  if (!electron) {
    throw new Error('Electron is not installed (the optional `electron` package is missing); run `npm install electron`, or use web mode.')
  }
  let sourceDir
  try {
    sourceDir = dirname(projectRequire(projectDir).resolve(`${MODULE}/package.json`))
  } catch {
    throw new Error(`${MODULE} is not installed; run \`npm install\`.`)
  }
  const moduleVersion = readJson(join(sourceDir, 'package.json'))?.version
  const nativeDir = join(projectDir, NATIVE_DIR_NAME)
  const targetDir = join(nativeDir, 'node_modules', MODULE)
  const bindingFile = join(nativeDir, 'binding.json')
  const wanted = { electronVersion: electron, moduleVersion, platform: process.platform, arch: process.arch }

  const current = readJson(bindingFile)
  if (
    !options.force &&
    current &&
    Object.entries(wanted).every(([k, v]) => current[k] === v) &&
    typeof current.nativeBinding === 'string' &&
    existsSync(current.nativeBinding)
  ) {
    log(`${MODULE} for Electron ${electron} is up to date.`)
    return current
  }

  // No binding.json while rebuilding: a failed run must not leave one pointing at a half-built binary.
  rmSync(bindingFile, { force: true })
  copyModule(sourceDir, targetDir)
  // The rebuild tool finds modules through this package.json's dependencies.
  writeFileSync(
    join(nativeDir, 'package.json'),
    JSON.stringify({ name: 'stride-electron-native', private: true, dependencies: { [MODULE]: moduleVersion } }, null, 2) + '\n'
  )

  log(`Building ${MODULE} ${moduleVersion} for Electron ${electron} in ${NATIVE_DIR_NAME}/ ...`)
  const rebuildOptions = {
    buildPath: nativeDir,
    // Stop the module search at .electron-native: the project's own node_modules copy is
    // the Node build and must stay untouched.
    projectRootPath: nativeDir,
    electronVersion: electron,
    onlyModules: [MODULE],
    force: true,
    mode: 'sequential'
  }
  try {
    await (options.rebuild ?? ((o) => defaultRebuild(o, projectDir)))(rebuildOptions)
  } catch (err) {
    throw new Error(
      `Could not rebuild ${MODULE} for Electron ${electron}: ${err?.message ?? err}. ` +
        'It needs the Electron headers (downloaded from electronjs.org, or a prebuilt binary from GitHub) ' +
        'and, failing those, a C++ toolchain (python3, make, g++). Fix that and run `node scripts/electron-native.mjs`, ' +
        'or start Stride in web mode with `npm start -- --web`.'
    )
  }

  const binary = join(targetDir, 'build', 'Release', 'better_sqlite3.node')
  if (!existsSync(binary)) {
    throw new Error(`The rebuild of ${MODULE} finished but produced no ${relative(projectDir, binary)}; run \`node scripts/electron-native.mjs --force\` and read its output.`)
  }
  const electronBin = options.electronBinary === undefined ? electronBinary(projectDir) : options.electronBinary
  if (electronBin) (options.verify ?? defaultVerify)(binary, electronBin)

  const record = { nativeBinding: binary, ...wanted }
  writeFileSync(bindingFile, JSON.stringify(record, null, 2) + '\n')
  log(`Wrote ${relative(projectDir, bindingFile)}.`)
  return record
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  prepareElectronNative({ force: process.argv.includes('--force') }).catch((err) => {
    console.error(err.message)
    process.exit(1)
  })
}
