import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

// electron-vite reads Electron's major version from node_modules/electron to pick the
// output target. Electron is an optional dependency (its binary cannot always be
// downloaded), so name the version we build for when the package is absent.
process.env.ELECTRON_MAJOR_VER ||= '40'

// The main bundle also runs under plain Node 20 (CLI, web mode, workers), so target
// Node 20 rather than Electron's newer embedded Node.
const nodeTarget = 'node20'

export default defineConfig({
  main: {
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
