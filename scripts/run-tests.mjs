#!/usr/bin/env node
// Runs every vitest project and ends with the plain summary line CI reads:
// "N passed, N failed, N skipped". Exit status is non-zero when anything failed.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const reportDir = join(root, 'out', 'test-results')
mkdirSync(reportDir, { recursive: true })
const reportFile = join(reportDir, 'vitest.json')

const extra = process.argv.slice(2)
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...extra],
  { cwd: root, stdio: 'inherit', env: process.env }
)

let passed = 0
let failed = 0
let skipped = 0
if (existsSync(reportFile)) {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'))
  passed = report.numPassedTests ?? 0
  failed = report.numFailedTests ?? 0
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
  // A test file that fails to load counts as a failure even though it ran no test.
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1
  }
} else {
  failed += 1
}
if (run.status !== 0 && failed === 0) failed = 1
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 ? 1 : 0)
