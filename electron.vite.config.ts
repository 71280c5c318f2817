import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

// electron-vite reads Electron's major version from node_modules/electron to pick the
// output target. Electron is an optional dependency (its binary cannot always be
// downloaded), so name the version we build for when the package is absent.
process.env.ELECTRON_MAJOR_VER ||= '40'

// The main bundle also runs under plain Node 20 (CLI, web mode, workers), so target
// Node 20 rather than Electron's newer embedded Node.
const nodeTarget = 'node20'

/**
 * A digest of what the backend is built from (src/main/build-identity.ts): its TypeScript, the
 * shared contract and the native core's C, tests left out, so that any change to them is another build.
 */
function buildIdentity(): string {
  const hash = createHash('sha256')
  const walk = (dir: string): void => {
    for (const entry of readdirSync(resolve(dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.(ts|c|h)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) hash.update(path).update('\0').update(readFileSync(resolve(path))).update('\0')
    }
  }
  // Paths relative to the repository: the same sources are the same build wherever they are checked out.
  for (const dir of ['src/main', 'src/shared', 'resources/native/core/src']) walk(dir)
  return hash.digest('hex').slice(0, 16)
}

export default defineConfig({
  main: {
    define: { __STRIDE_BUILD__: JSON.stringify(buildIdentity()) },
    build: {
      target: nodeTarget,
      // zod is bundled (tree-shaken), not required from node_modules: its package entry
      // loads every locale (~40 files, ~100 ms of a 0.8 s `stride simulate`); bundled, only
      // the English messages it configures stay, and loading the API schemas takes ~35 ms.
      externalizeDeps: { exclude: ['zod'] },
      rolldownOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          'trace-worker': resolve('src/main/workers/trace-worker.ts'),
          'task-worker': resolve('src/main/workers/task-worker.ts'),
          'frida-owner-process': resolve('src/main/tracing/frida/frida-owner-process.ts')
        },
        external: ['better-sqlite3', 'ws', 'frida']
      }
    }
  },
  preload: {
    build: {
      target: nodeTarget,
      // A sandboxed preload may only require('electron'): bundle everything else in.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs' }
      }
    }
  },
  renderer: {
    root: resolve('src/renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      chunkSizeWarningLimit: 6000,
      rolldownOptions: {
        input: { index: resolve('src/renderer/index.html') }
      }
    }
  }
})
