/** The one line a failed native-core build prints, from node-gyp's real output shapes. */
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without type declarations
import { nativeBuildHint } from './native-build-hint.mjs'

const hint = nativeBuildHint as (out: string) => string
// What every node-gyp run prints, failing or not.
const preamble = [
  "gyp info spawn args '/usr/include/node/common.gypi',",
  'gyp info spawn args [ "-Dnode_root_dir=/usr", "--depth=." ]',
  'gyp ERR! command "/usr/bin/node" "node-gyp.js" "rebuild" "--release" "--nodedir=/usr"'
].join('\n')

describe('nativeBuildHint', () => {
  it("names brotli's development files when a brotli header or library is missing", () => {
    for (const line of ['../src/codec/brotli.c:4:10: fatal error: brotli/decode.h: No such file or directory', '/usr/bin/ld: cannot find -lbrotlienc: No such file or directory'])
      expect(hint(`${preamble}\n${line}\nmake: *** [stride_core.target.mk:145: brotli.o] Error 1`)).toMatch(/libbrotli-dev/)
  })

  it("names Node's headers only when they are what is missing", () => {
    expect(hint(`${preamble}\n../src/addon.h:5:10: fatal error: node_api.h: No such file or directory`)).toMatch(/Node's headers/)
    expect(hint(`${preamble}\n../src/sim/level.c:9:3: error: unknown type name 'foo'`)).toBe('see the compiler output above')
  })

  it('names a missing tool', () => {
    expect(hint(`${preamble}\ngyp ERR! stack Error: not found: make`)).toMatch(/^make is missing/)
  })
})
