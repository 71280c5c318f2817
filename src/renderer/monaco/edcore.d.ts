// The lean Monaco entry (editor core without the bundled language services) has no
// typings of its own; it exports the same API as the full package.
declare module 'monaco-editor/esm/vs/editor/edcore.main.js' {
  export * from 'monaco-editor'
}
declare module 'monaco-editor/esm/vs/basic-languages/cpp/cpp.contribution.js'
