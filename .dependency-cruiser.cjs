/**
 * Stride's layering, checked in `npm test` (scripts/check-layers.mjs). Each rule says what a
 * stage must not know; the folder READMEs say the same in prose.
 */
const PURE = '^src/main/(compress|simulate|correlate|analysis)/'
const IO_MODULES = '^(node:)?(fs|child_process|worker_threads|net|http|https|dgram|cluster)$|^better-sqlite3$|^electron$|^ws$|^frida$'

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Modules import each other: split the shared part out.', from: {}, to: { circular: true } },
    {
      name: 'renderer-stays-in-the-page',
      severity: 'error',
      comment: 'The renderer talks to the backend only through the API contract in src/shared.',
      from: { path: '^src/renderer/' },
      to: { path: '^src/(main|preload|agent)/' }
    },
    {
      name: 'preload-exposes-only-the-contract',
      severity: 'error',
      from: { path: '^src/preload/' },
      to: { path: '^src/(main|renderer|agent)/' }
    },
    {
      name: 'shared-depends-on-nothing',
      severity: 'error',
      comment: 'src/shared is the contract all three sides import; it imports none of them.',
      from: { path: '^src/shared/' },
      to: { path: '^src/(main|renderer|preload|agent)/' }
    },
    {
      name: 'pure-cores-do-no-io',
      severity: 'error',
      comment: 'Compressor, simulator, correlator and analyses are pure: typed arrays in, values out.',
      from: { path: PURE, pathNot: '\\.test\\.ts$' },
      to: { path: [IO_MODULES, '^src/main/(store|workers|tracing|services|server|cli)/'], dependencyTypesNot: ['type-only'] }
    },
    {
      name: 'store-knows-no-runtime',
      severity: 'error',
      comment: 'Sessions on disk know nothing of workers, tracers, services or the CLI.',
      from: { path: '^src/main/store/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/main/(workers|tracing|services|server|cli)/' }
    },
    {
      name: 'tracers-know-no-runtime',
      severity: 'error',
      comment: 'Tracing backends are driven by workers and services, never the other way round.',
      from: { path: '^src/main/tracing/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/main/(workers|services|server|cli)/' }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.node.json' },
    exclude: { path: '^(out|node_modules)/' }
  }
}
