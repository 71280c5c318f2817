/**
 * Whether the real `frida` can be imported on this machine, asked of a separate Node
 * process: loading the binding in a test's own thread would make that thread its owner,
 * and a test that then traces through the Frida owner thread would load it twice.
 */
import { spawnSync } from 'node:child_process'
import { projectRoot } from '../../../paths'

/** The reason every real-Frida test gives when it is skipped. */
export const FRIDA_SKIP = 'skipped, frida not importable'

let cached: boolean | null = null

export function fridaImportable(): boolean {
  cached ??=
    spawnSync(process.execPath, ['--input-type=module', '-e', "const f = await import('frida'); await (f.default ?? f).getLocalDevice(); process.exit(0)"], {
      cwd: projectRoot(),
      stdio: 'ignore',
      timeout: 30_000
    }).status === 0
  return cached
}
