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

export { monaco }
export type Monaco = typeof monaco
