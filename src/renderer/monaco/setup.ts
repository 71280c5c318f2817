/**
 * Monaco, bundled locally (no CDN: the CSP forbids it and the desktop app may be offline).
 * We load the editor core plus the C/C++ grammar only: the JSON/CSS/HTML/TS language
 * services would add megabytes and workers we never use.
 */
import * as monaco from 'monaco-editor/esm/vs/editor/edcore.main.js'
import 'monaco-editor/esm/vs/basic-languages/cpp/cpp.contribution.js'
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker'
import { loader } from '@monaco-editor/react'

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker }
  }
}

// Only the generic editor worker exists in this build (diffing, word ranges).
self.MonacoEnvironment = { getWorker: () => new EditorWorker() }
loader.config({ monaco })

// Monaco rejects its pending work with a "Canceled" error when an editor is disposed (the
// source view unmounts on a tab switch); that is its normal teardown, not a failure.
window.addEventListener('unhandledrejection', (e) => {
  const reason = e.reason as { name?: string; message?: string } | null
  if (reason && reason.name === 'Canceled' && reason.message === 'Canceled') e.preventDefault()
})

export { monaco }
export type Monaco = typeof monaco
