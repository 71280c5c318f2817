/** `--functions` with C++ names as written (g++ -O2, PIE): traced by their demangled name. */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('cxx-names')
const env = fixedEnv(dir)

describe('C++ function names', () => {
  it('ns::scan traces the namespace function; an unknown name says where to look', () => {
    const program = join(dir, 'ns_scan')
    const cc = spawnSync('g++', ['-g', '-O2', '-o', program, join(__dirname, 'fixtures', 'ns_scan.cpp')], { encoding: 'utf8' })
    expect(cc.status, cc.stderr).toBe(0)
    const out = strideOk(['trace', '--launch', program, '--functions', 'ns::scan', '--out', join(dir, 's.stride')], env)
    // 4096 reads of the vector, plus the return-address read.
    expect(out).toMatch(/^409[67] events/m) // after the program's own output
    const r = stride(['trace', '--launch', program, '--functions', 'ns::nope', '--out', join(dir, 'n.stride')], env)
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/Function "ns::nope" not found in .*ns_scan; .*--backend frida/)
  })
})
