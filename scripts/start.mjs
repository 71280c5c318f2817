#!/usr/bin/env node
// What `npm start` runs after the build: the desktop app when Electron is installed,
// else web mode (the optional `electron` package is absent where its binary cannot be
// downloaded). `--web` forces web mode; other arguments go to Electron or to `serve`
// (e.g. `npm start -- --web --port 5000`).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { electronBinary, PROJECT_DIR, prepareElectronNative } from './electron-native.mjs'

const args = process.argv.slice(2)
const forceWeb = args.includes('--web')
const passthrough = args.filter((a) => a !== '--web')

/** Run `command`, relay SIGINT/SIGTERM to it exactly once, and exit as it exits. */
function run(command, commandArgs) {
  const child = spawn(command, commandArgs, {
    cwd: PROJECT_DIR,
    stdio: 'inherit',
    // Its own process group, so a terminal Ctrl-C reaches it once (from us), not twice.
    detached: process.platform !== 'win32'
  })
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    })
  }
  child.on('error', (err) => {
    console.error(`Could not start ${command}: ${err.message}`)
    process.exit(1)
  })
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1))
  })
}

function startWeb() {
  const cli = join(PROJECT_DIR, 'out', 'main', 'cli.js')
  if (!existsSync(cli)) {
    console.error('Stride is not built (out/main/cli.js is missing); run `npm run build` first.')
    process.exit(1)
  }
  run(process.execPath, [cli, 'serve', ...passthrough])
}

const electron = forceWeb ? null : electronBinary()
if (electron === null) {
  if (!forceWeb) console.log('Electron is not installed, so Stride runs in web mode: open the URL below in a browser.')
  startWeb()
} else {
  let nativeReady = true
  try {
    await prepareElectronNative()
  } catch (err) {
    nativeReady = false
    console.error(err.message)
    console.log('Falling back to web mode.')
  }
  if (nativeReady) run(electron, ['.', ...passthrough])
  else startWeb()
}
