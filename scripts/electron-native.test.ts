/** The Electron copy of better-sqlite3, with the rebuild itself replaced by a stand-in. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { electronBinary, prepareElectronNative } from './electron-native.mjs'

let project: string
const quiet = (): void => undefined

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'stride-native-'))
  write(join(project, 'package.json'), '{"name":"p"}')
  const pkg = join(project, 'node_modules', 'better-sqlite3')
  write(join(pkg, 'package.json'), '{"name":"better-sqlite3","version":"12.11.1","main":"lib/index.js"}')
  write(join(pkg, 'lib', 'index.js'), 'module.exports = {}')
  write(join(pkg, 'binding.gyp'), '{}')
  write(join(pkg, 'src', 'better_sqlite3.cpp'), '// source')
  write(join(pkg, 'build', 'Release', 'better_sqlite3.node'), 'NODE-ABI BINARY')
})
afterEach(() => rmSync(project, { recursive: true, force: true }))

interface RebuildOptions {
  buildPath: string
  projectRootPath: string
  electronVersion: string
  onlyModules: string[]
  force: boolean
}

/** Does what @electron/rebuild would: put an Electron-ABI binary into the copy's build/. */
function fakeRebuild(seen: RebuildOptions[] = []) {
  return vi.fn(async (options: RebuildOptions) => {
    seen.push(options)
    const copy = join(options.buildPath, 'node_modules', 'better-sqlite3')
    expect(existsSync(join(copy, 'build')), 'the Node build must not be copied').toBe(false)
    expect(existsSync(join(copy, 'binding.gyp'))).toBe(true)
    write(join(copy, 'build', 'Release', 'better_sqlite3.node'), 'ELECTRON-ABI BINARY')
  })
}

const base = () => ({ projectDir: project, electronVersion: '40.8.5', electronBinary: null, log: quiet })

describe('electron-native', () => {
  it('rebuilds a private copy for Electron and records its binary in binding.json', async () => {
    const seen: RebuildOptions[] = []
    const record = await prepareElectronNative({ ...base(), rebuild: fakeRebuild(seen) })
    const native = join(project, '.electron-native')
    expect(seen).toEqual([
      expect.objectContaining({
        buildPath: native,
        projectRootPath: native,
        electronVersion: '40.8.5',
        onlyModules: ['better-sqlite3'],
        force: true
      })
    ])
    const binding = JSON.parse(readFileSync(join(native, 'binding.json'), 'utf8'))
    expect(binding).toEqual(record)
    expect(binding).toMatchObject({
      nativeBinding: join(native, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
      electronVersion: '40.8.5',
      moduleVersion: '12.11.1',
      platform: process.platform,
      arch: process.arch
    })
    expect(readFileSync(binding.nativeBinding, 'utf8')).toBe('ELECTRON-ABI BINARY')
    expect(JSON.parse(readFileSync(join(native, 'package.json'), 'utf8')).dependencies).toEqual({ 'better-sqlite3': '12.11.1' })
    // Node's copy stays as installed.
    expect(readFileSync(join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), 'utf8')).toBe(
      'NODE-ABI BINARY'
    )
  })

  it('skips the work when binding.json already matches, unless forced or Electron changed', async () => {
    await prepareElectronNative({ ...base(), rebuild: fakeRebuild() })
    const again = fakeRebuild()
    await prepareElectronNative({ ...base(), rebuild: again })
    expect(again).not.toHaveBeenCalled()
    await prepareElectronNative({ ...base(), rebuild: again, force: true })
    expect(again).toHaveBeenCalledTimes(1)
    await prepareElectronNative({ ...base(), electronVersion: '41.0.0', rebuild: again })
    expect(again).toHaveBeenCalledTimes(2)
  })

  it('fails with the cause and the fix, leaving no binding.json, when the rebuild fails', async () => {
    await prepareElectronNative({ ...base(), rebuild: fakeRebuild() })
    const failing = vi.fn(async () => {
      throw new Error('getaddrinfo ENOTFOUND www.electronjs.org')
    })
    await expect(prepareElectronNative({ ...base(), rebuild: failing, force: true })).rejects.toThrow(
      /Could not rebuild better-sqlite3 for Electron 40\.8\.5: getaddrinfo ENOTFOUND.*scripts\/electron-native\.mjs.*--web/
    )
    expect(existsSync(join(project, '.electron-native', 'binding.json'))).toBe(false)
  })

  it('fails clearly when the rebuild produced no binary or it does not load in Electron', async () => {
    await expect(prepareElectronNative({ ...base(), rebuild: vi.fn(async () => undefined) })).rejects.toThrow(
      /produced no .*better_sqlite3\.node/
    )
    const verify = vi.fn(() => {
      throw new Error('the rebuilt better-sqlite3 does not load in Electron: NODE_MODULE_VERSION 115')
    })
    await expect(
      prepareElectronNative({ ...base(), electronBinary: '/opt/electron', rebuild: fakeRebuild(), verify })
    ).rejects.toThrow(/does not load in Electron/)
    expect(verify).toHaveBeenCalledWith(
      join(project, '.electron-native/node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
      '/opt/electron'
    )
    expect(existsSync(join(project, '.electron-native', 'binding.json'))).toBe(false)
  })

  it('says Electron is missing when it is', async () => {
    await expect(prepareElectronNative({ projectDir: project, log: quiet })).rejects.toThrow(/Electron is not installed/)
  })

  it('finds the Electron binary only when the package and its binary both exist', () => {
    expect(electronBinary(project)).toBeNull()
    const bin = join(project, 'electron-bin')
    write(join(project, 'node_modules', 'electron', 'package.json'), '{"name":"electron","version":"40.8.5","main":"index.js"}')
    write(join(project, 'node_modules', 'electron', 'index.js'), `module.exports = ${JSON.stringify(bin)}`)
    expect(electronBinary(project)).toBeNull()
    write(bin, '#!/bin/sh\n')
    expect(electronBinary(project)).toBe(bin)
  })
})
