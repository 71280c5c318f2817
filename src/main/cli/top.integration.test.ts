/**
 * `stride top`: a whole-program trace with the host's caches, its functions ranked by
 * first-level misses (self costs), and the command that zooms into the hottest.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { example, fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('top')
const env = fixedEnv(dir)
const session = join(dir, 'mult.stride')

interface TopJson {
  session: string
  program: string
  level: string
  inclusive: boolean
  note: string
  totalMisses: number
  zoom: string
  functions: Array<{ rank: number; function: string; traceName: string | null; reads: number; writes: number; misses: Record<string, number>; share: number }>
}

describe('stride top', () => {
  let text: ReturnType<typeof stride>
  beforeAll(() => {
    // mult: do_mult walks B down its columns, a miss per read; main (init inlined) writes both arrays along rows.
    text = stride(['top', '--out', session, '--launch', example('mult')], env)
  }, 300_000)

  it('traces the whole program with the host caches and ranks the kernel first, with the zoom command', () => {
    expect(text.status, text.stderr).toBe(0)
    expect(text.stderr).toMatch(/^stride top: no --cache, so the host's caches\. Host: D1 /m)
    const lines = text.stdout.split('\n')
    const header = lines.findIndex((l) => l.startsWith('rank  function (self)'))
    expect(lines[header]).toMatch(/reads +writes +D1 misses +LL misses +share of D1 misses$/)
    expect(lines[header + 1]).toMatch(/^ +1 +do_mult +2000001 +1000000 +\d+ +\d+ +\d+\.\d%$/)
    expect(text.stdout).toContain('Self costs: ')
    expect(text.stdout).toMatch(/not shown\.\nZoom into do_mult:\n {2}stride trace --functions do_mult --cache D1:\S+ --cache LL:\S+ --out mult-do_mult\.stride --launch \S+\/mult\n$/)
    expect(existsSync(session)).toBe(true)
  })

  it('ranks an existing whole-program session the same, as JSON, with no inclusive costs', () => {
    const top = JSON.parse(strideOk(['top', session, '--json'], env)) as TopJson
    expect(top).toMatchObject({ level: 'D1', inclusive: false })
    expect(top.functions[0]).toMatchObject({ rank: 1, function: 'do_mult', traceName: 'do_mult', reads: 2000001, writes: 1000000 })
    expect(top.functions[0]!.misses.D1).toBeGreaterThan(top.functions[1]!.misses.D1!)
    expect(top.functions[0]!.share).toBeGreaterThan(0.5)
    expect(top.zoom).toMatch(/^stride trace --functions do_mult /)
    // Another object's function is named as --functions takes it.
    expect(top.functions.some((f) => /^(libc\.so\.6|ld-linux[\w.-]*):/.test(f.traceName ?? ''))).toBe(true)
  })

  it('takes --cache, and writes into the sessions folder without --out', () => {
    const r = strideOk(['top', '--cache', 'L1:32K:8:64', '--count', '2', '--launch', example('mult')], env)
    expect(r).toMatch(/\n +1 +do_mult /)
    expect(r).toContain('... and ')
    expect(r).toMatch(/--functions do_mult --cache L1:32K:8:64 --out/)
    expect(readdirSync(join(dir, 'stride', 'sessions')).some((f) => /^mult-top-.*\.stride$/.test(f))).toBe(true)
  })

  it('refuses a session of chosen functions, and one with no run, saying what to do', () => {
    const chosen = join(dir, 'chosen.stride')
    strideOk(['trace', '--functions', 'do_mult', '--out', chosen, '--launch', example('mult')], env)
    const r = stride(['top', chosen], env)
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toMatch(/^stride top: \S+chosen\.stride was traced with --functions do_mult, so it holds only their accesses; rank the whole program with stride top --launch /)
    const conflict = join(dir, 'conflict.stride')
    strideOk(['trace', '--out', conflict, '--launch', example('conflict')], env)
    const none = stride(['top', conflict], env)
    expect(none.status).toBe(2)
    expect(none.stderr.trim()).toMatch(/holds no simulated run; simulate it first \(stride simulate /)
  })
})
