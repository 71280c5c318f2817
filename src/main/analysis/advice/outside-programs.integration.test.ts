/**
 * The advisor on programs Stride's examples did not shape (fixtures/, built as a user would:
 * cc -g -O2, PIE): its first card names the reference holding most misses, a pointer chase is
 * not told to use an index vector, a real set conflict is called one (and its padding works,
 * between arrays or of a column-walked array's rows),
 * column walks and gathers that do not fit are not, and a page-per-access loop gets the TLB.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunAdvice, RunReport } from '../../../shared/domain'
import { fixedEnv, strideOk, tempDir } from '../../testing/cli-runner'

const home = tempDir('advice-outside')
const env = fixedEnv(home)

function build(name: string, ...sources: string[]): string {
  const out = join(home, name)
  const r = spawnSync('cc', ['-g', '-O2', '-fPIE', '-pie', '-o', out, ...sources.map((s) => join(__dirname, 'fixtures', s))], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`cc failed for ${name}: ${r.stderr}`)
  return out
}
function traced(program: string, functions: string, caches: string[]): string {
  const session = join(home, `${program.slice(program.lastIndexOf('/') + 1)}.stride`)
  strideOk(['trace', '--launch', program, '--functions', functions, '--out', session], env)
  strideOk(['simulate', session, ...caches], env)
  return session
}
const advise = (session: string, ...args: string[]) => JSON.parse(strideOk(['advise', session, '--json', ...args], env)) as RunAdvice
const report = (session: string) => JSON.parse(strideOk(['report', session, '--by', 'reference', '--json'], env)) as RunReport
const mostMissing = (r: RunReport, level: string) => [...r.references].sort((a, b) => (b.levels[level]?.misses ?? 0) - (a.levels[level]?.misses ?? 0))[0]!
const l1Misses = (out: string) => {
  const l = (JSON.parse(out) as { levels: Array<{ readMisses: number; writeMisses: number }> }).levels[0]!
  return l.readMisses + l.writeMisses
}

describe('advisor on outside-style programs', () => {
  let listmult: string
  let pages: string
  let setclash: string
  let colsum: string
  beforeAll(() => {
    listmult = traced(build('listmult', 'listmult.c', 'list.c'), 'sum_list,matmul', ['--cache', 'L1:32K:8:64'])
    pages = traced(build('pages', 'pages.c'), 'main', ['--cache', 'L1:32K:8:64', '--cache', 'L2:1M:16:64', '--tlb', 'DTLB:64:4:4K'])
    setclash = traced(build('setclash', 'setclash.c'), 'dot3', ['--cache', 'L1:32K:2:64'])
    colsum = traced(build('colsum', 'colsum.c'), 'main', ['--cache', 'L1:32K:8:64'])
  })

  it('list walk + matrix product: the first card is the b[k][j] column walk; the list walk is a pointer chase', () => {
    const advice = advise(listmult)
    const top = mostMissing(report(listmult), 'L1')
    const [first] = advice.items
    expect(first!.references).toContain(top.id)
    expect(top.sourceExpr).toBe('b[k][j]')
    expect(first!.diagnosis).toBe('large-stride')
    expect(first!.title).toMatch(/^Column walk: .*b\[k\]\[j\]/)
    expect(first!.share).toBeGreaterThan(0.7)
    const chase = advice.items.find((i) => i.variables.includes('pool'))!
    expect(chase.diagnosis).toBe('pointer-chase')
    expect(chase.suggestion).not.toMatch(/index vector/)
    // b does not fit in 32 KiB between its uses: capacity, not a conflict.
    expect(advice.items.some((i) => i.diagnosis === 'conflict')).toBe(false)
    expect(advice.classes!.byReference[top.id]!.capacity).toBeGreaterThan(advice.classes!.byReference[top.id]!.conflict)
  })

  it('three tables a way apart, re-read in a loop that fits: a conflict, and the padding it offers removes it', () => {
    const advice = advise(setclash)
    const [first] = advice.items
    expect(first!.diagnosis).toBe('conflict')
    expect(first!.variables.sort()).toEqual(['x', 'y', 'z'])
    expect(first!.evidence.join(' | ')).toMatch(/a fully associative 32 KiB L1 would have hit them/)
    const pads = first!.action!.kind === 'layout' ? first!.action!.layout : []
    const padded = strideOk(['simulate', setclash, '--cache', 'L1:32K:2:64', '--no-baseline', ...pads.flatMap((p) => ['--pad', `${p.variable}=${p.kind === 'external' ? p.bytes : 0}`]), '--json'], env)
    expect(l1Misses(padded)).toBeLessThan(advice.totalMisses / 100)
  })

  it('a damaged trace still gets the stored run diagnosed, saying the set-mapping check was lost', async () => {
    const broken = join(home, 'broken.stride')
    copyFileSync(setclash, broken)
    const { default: Database } = await import('better-sqlite3')
    const db = new Database(broken)
    db.prepare("UPDATE trace_chunks SET data = x'0001020304' WHERE seq = (SELECT MIN(seq) FROM trace_chunks)").run()
    db.close()
    const advice = advise(broken, '--run', '1')
    expect(advice.classes).toBeUndefined()
    expect(advice.classesMissing).toMatch(/^the trace could not be replayed \(Session .*broken\.stride is damaged at chunk 1 of \d+ \(.*\), so no miss is called a conflict$/)
    expect(advice.items.length).toBeGreaterThan(0)
    expect(advice.items.some((i) => i.diagnosis === 'conflict')).toBe(false)
  })

  it('a column walk over 4 KiB rows: conflict misses from the set mapping, and padding the rows by a line removes them', () => {
    const advice = advise(colsum)
    const [first] = advice.items
    expect(first!.title).toMatch(/^Column walk: m_Read_16@main\+0x[0-9a-f]+ \(m\[i\]\[j\]\)$/)
    const walk = /m_Read_\S+/.exec(first!.title)![0]
    expect(first!.evidence).toContain('a stride of 4,096 bytes (64 lines) visits 1 of the 64 L1 sets, so at most 8 of its lines stay cached at once; a walk is 64 long')
    expect(first!.action).toEqual({ kind: 'layout', label: 'Pad the rows of m to 520 elements', layout: [{ kind: 'internal', variable: 'm', dim: 1, extent: 520, order: 'row' }] })
    const conflict = advice.classes!.byReference[walk]!.conflict
    const padded = strideOk(['simulate', colsum, '--cache', 'L1:32K:8:64', '--no-baseline', '--pad-dim', 'm=1:520', '--json'], env)
    // What remains is what a fully associative cache misses too (capacity): the conflicts are gone.
    expect(advice.totalMisses - l1Misses(padded)).toBeGreaterThan(0.95 * conflict)
  })

  it('one field per 4 KiB record: a TLB card with 2 MiB pages to try, and set conflicts at L2 where the lines would fit', () => {
    const advice = advise(pages)
    const tlb = advice.items.find((i) => i.diagnosis === 'tlb')!
    expect(tlb.evidence).toContain('stride 4096 bytes ≥ the 4 KiB page: every access is on a new page')
    expect(tlb.action).toMatchObject({ kind: 'tlb', tlb: [{ name: 'DTLB', pageSize: 2097152 }] })
    const huge = JSON.parse(strideOk(['simulate', pages, '--cache', 'L1:32K:8:64', '--cache', 'L2:1M:16:64', '--tlb', 'DTLB:64:4:2M', '--json'], env)) as { levels: Array<{ name: string; readMisses: number; writeMisses: number }> }
    const dtlb = huge.levels.find((l) => l.name === 'DTLB')!
    expect(dtlb.readMisses + dtlb.writeMisses).toBeLessThan(tlb.misses / 100)
    const l2 = advise(pages, '--level', 'L2')
    expect(l2.items[0]!.evidence.join(' | ')).toMatch(/a stride of 4,096 bytes \(64 lines\) visits 16 of the 1,024 L2 sets, so at most 256 of its lines stay cached at once; a walk is 2,048 long/)
  })

})
