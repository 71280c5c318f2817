/**
 * Vitest's global set-up: every test of a run makes its temporary files under one folder of its
 * own (TMPDIR, which os.tmpdir() and the programs the tests start read), removed when the run
 * ends. Each run used to leave ~850 MB in /tmp (the codec fuzz's sessions, traced examples,
 * Chromium profiles) that nothing removed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'stride-tests-'))
  const before = process.env.TMPDIR
  process.env.TMPDIR = root
  return () => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
    rmSync(root, { recursive: true, force: true })
  }
}
