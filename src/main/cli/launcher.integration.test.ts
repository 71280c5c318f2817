/**
 * The installed `stride` command (bin/stride.js) starts Node without NODE_EXTRA_CA_CERTS, and
 * the programs it launches see the variable as the user set it; and it says its version.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, ROOT, run, tempDir } from '../testing/cli-runner'

const dir = tempDir('launcher')
const bin = join(ROOT, 'bin', 'stride.js')
// A file that does not exist: Node 20 says "Ignoring extra certs" at start when it reads the variable.
const missingCa = join(dir, 'no-such-ca.pem')
const seenBy = (name: string) => `printf %s "\${NODE_EXTRA_CA_CERTS-unset}|\${STRIDE_NODE_EXTRA_CA_CERTS-unset}" > ${join(dir, name)}`

describe('bin/stride.js', () => {
  it('does not make Node read NODE_EXTRA_CA_CERTS, and the launched program sees it unchanged', () => {
    const env = { ...fixedEnv(dir), NODE_EXTRA_CA_CERTS: missingCa }
    // The check below means something: Node itself, started with the variable, reads it.
    expect(run(process.execPath, ['-e', '0'], env).stderr).toMatch(/Ignoring extra certs/)
    const r = run(bin, ['trace', '--launch', '/bin/sh', '--out', join(dir, 'with.stride'), '--', '-c', seenBy('with')], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/extra certs/)
    expect(readFileSync(join(dir, 'with'), 'utf8')).toBe(`${missingCa}|unset`)
  })

  it('says its version (the package\'s) and Node\'s', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    for (const flag of ['--version', 'version']) {
      const r = run(bin, [flag], fixedEnv(dir))
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout.trim()).toMatch(new RegExp(`^stride ${version.replace(/\./g, '\\.')} \\(node v\\d+\\.\\d+\\.\\d+\\)$`))
    }
  })

  it('leaves an environment without the variable as it was', () => {
    // The launcher's own variable, left over in an environment, is not taken for the user's.
    const r = run(bin, ['trace', '--launch', '/bin/sh', '--out', join(dir, 'without.stride'), '--', '-c', seenBy('without')], { ...fixedEnv(dir), STRIDE_NODE_EXTRA_CA_CERTS: missingCa })
    expect(r.status, r.stderr).toBe(0)
    expect(readFileSync(join(dir, 'without'), 'utf8')).toBe('unset|unset')
  })
})
