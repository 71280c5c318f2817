import { describe, expect, it } from 'vitest'
import { ModuleMap, parseMaps } from './proc-maps'

const MAPS = `00108000-00109000 r--p 00000000 fe:00 2146442                            /tmp/ex/reuse
00109000-0010a000 r-xp 00001000 fe:00 2146442                            /tmp/ex/reuse
0010d000-01136000 rw-p 00000000 00:00 0 
04000000-04001000 r--p 00000000 fe:00 338944                             /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
04001000-04027000 r-xp 00001000 fe:00 338944                             /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
58000000-58001000 r--p 00000000 fe:00 341618                             /usr/libexec/valgrind/lackey-amd64-linux
7ffca97a1000-7ffca97c2000 rw-p 00000000 00:00 0                          [stack]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]`

describe('proc maps', () => {
  it('keeps file-backed mappings only', () => {
    const maps = parseMaps(MAPS)
    expect(maps.map((m) => m.path)).toEqual([
      '/tmp/ex/reuse',
      '/tmp/ex/reuse',
      '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
      '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
      '/usr/libexec/valgrind/lackey-amd64-linux'
    ])
  })

  it('finds the module and load base of an address, ignoring Valgrind itself', () => {
    const mm = new ModuleMap()
    expect(mm.add(parseMaps(MAPS))).toBe(true)
    expect(mm.add(parseMaps(MAPS))).toBe(false)
    expect(mm.find(0x109159)).toMatchObject({ path: '/tmp/ex/reuse', base: 0x108000 })
    expect(mm.find(0x4001234)!.base).toBe(0x4000000)
    expect(mm.find(0x58000100)).toBeNull()
    expect(mm.find(0x7ffca97a1000)).toBeNull()
  })

  it("leaves out Stride's own record ring, a mapping of the tool's (a memfd)", () => {
    const mm = new ModuleMap()
    mm.add(parseMaps(`${MAPS}\n1002001000-1002201000 rw-s 00000000 00:01 3072                       /memfd:stride-records (deleted)`))
    expect(mm.all().map((m) => m.path)).toEqual(['/tmp/ex/reuse', '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'])
  })

  it('hands out each shared object once, never the program itself', () => {
    const mm = new ModuleMap()
    mm.add(parseMaps(MAPS))
    expect(mm.takeNew('/tmp/ex/reuse').map((m) => m.path)).toEqual(['/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'])
    expect(mm.takeNew('/tmp/ex/reuse')).toEqual([])
    mm.add(parseMaps('05000000-05001000 r--p 00000000 fe:00 9 /opt/app/libfix.so'))
    expect(mm.takeNew('/tmp/ex/reuse')).toMatchObject([{ path: '/opt/app/libfix.so', base: 0x5000000 }])
  })
})
