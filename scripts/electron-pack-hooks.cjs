// electron-builder hooks (electron-builder.yml). The project's own node_modules stay built for
// Node (CLI, web mode, tests), so electron-builder must not rebuild them in place
// (npmRebuild: false). Instead the Electron-ABI better-sqlite3 that scripts/electron-native.mjs
// builds under .electron-native/ is prepared before packing and copied into the package after.
const { spawnSync } = require('node:child_process')
const { copyFileSync, existsSync, mkdirSync, readFileSync } = require('node:fs')
const { join } = require('node:path')

const root = join(__dirname, '..')

exports.beforePack = async function beforePack() {
  const r = spawnSync(process.execPath, [join(__dirname, 'electron-native.mjs')], { stdio: 'inherit' })
  if (r.status !== 0) throw new Error('packaging needs better-sqlite3 built for Electron: scripts/electron-native.mjs failed (see above)')
}

exports.afterPack = async function afterPack(context) {
  const record = JSON.parse(readFileSync(join(root, '.electron-native', 'binding.json'), 'utf8'))
  const unpacked = join(context.appOutDir, 'resources', 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release')
  mkdirSync(unpacked, { recursive: true })
  if (!existsSync(record.nativeBinding)) throw new Error(`${record.nativeBinding} is missing: run node scripts/electron-native.mjs --force`)
  copyFileSync(record.nativeBinding, join(unpacked, 'better_sqlite3.node'))
}
