/**
 * The advisor on programs that are not bundled examples (src/main/analysis/advice/fixtures,
 * built as a user would: cc -g -O2, PIE), in web mode: the first card names the reference
 * holding most misses (the matrix product's b[k][j] column walk, not the list walk); the list
 * walk is a pointer chase with no "index vector" advice; the evictor panel and the advisor
 * agree about conflict (none in the list/matrix program, the A↔B↔C-like cycle of a real set
 * conflict is one).
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { RunReport } from '../src/shared/domain'
import { fixedEnv, ROOT, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

const dir = tempDir('e2e-advisor-outside')
const env = fixedEnv(dir)
const fixtures = join(ROOT, 'src', 'main', 'analysis', 'advice', 'fixtures')
const sessions: Record<string, string> = {}
let hottest = ''

function traced(name: string, sources: string[], functions: string, cache: string): void {
  const program = join(dir, name)
  const cc = spawnSync('cc', ['-g', '-O2', '-fPIE', '-pie', '-o', program, ...sources.map((s) => join(fixtures, s))], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(cc.stderr)
  sessions[name] = join(dir, `${name}.stride`)
  strideOk(['trace', '--launch', program, '--functions', functions, '--out', sessions[name]!], env)
  strideOk(['simulate', sessions[name]!, '--cache', cache], env)
}

const web = useWebMode(() => {
  traced('listmult', ['listmult.c', 'list.c'], 'sum_list,matmul', 'L1:32K:8:64')
  traced('setclash', ['setclash.c'], 'dot3', 'L1:32K:2:64')
  const report = JSON.parse(strideOk(['report', sessions.listmult!, '--by', 'reference', '--json'], env)) as RunReport
  hottest = [...report.references].sort((a, b) => (b.levels.L1?.misses ?? 0) - (a.levels.L1?.misses ?? 0))[0]!.id
})

async function open(page: Page, name: string): Promise<void> {
  writeFileSync(join(web.server.home, 'recent.json'), JSON.stringify([{ path: sessions[name], program: join(dir, name), openedAt: new Date().toISOString() }]))
  await page.goto(web.server.url)
  await page.getByTestId('recent-session').first().click()
  await page.getByTestId('tab-advisor').click({ timeout: 60_000 })
}

describe('advisor on outside programs', () => {
  it('list walk + matrix product: the first card is the column walk holding most misses; no conflict anywhere', async () => {
    const { page, problems } = await newPage(web.browser)
    await open(page, 'listmult')
    const first = page.getByTestId('advice-item').first()
    await first.waitFor({ timeout: 120_000 })
    expect(hottest).toMatch(/^b_Read_\d+@matmul\+0x[0-9a-f]+$/)
    expect(await first.getAttribute('data-diagnosis')).toBe('large-stride')
    expect(await first.locator('.advice-title').textContent()).toBe(`Column walk: ${hottest} (b[k][j])`)
    const all = (await page.getByTestId('advice-list').textContent()) ?? ''
    expect(all).toMatch(/Pointer chase: pool_Read_\d+@\S+\+0x[0-9a-f]+/)
    expect(all).not.toMatch(/index vector/)
    await screenshot(page, 'advisor-outside-1-listmult')

    // The evictor panel labels cycles with the advisor's rule: b's self-eviction is capacity.
    await page.getByTestId('tab-evictors').click()
    await page.getByTestId('evictor-cycle-rule').waitFor()
    const causes = page.getByTestId('evictor-cycle-cause')
    if ((await page.getByTestId('evictor-cycle').count()) > 0) {
      await causes.first().waitFor({ timeout: 60_000 })
      for (const c of await causes.all()) expect(await c.getAttribute('data-cause')).not.toBe('conflict')
    }
    expect(problems).toEqual([])
    await page.close()
  })

  it('a real set conflict: the advisor says conflict and the evictor panel labels the cycle the same', async () => {
    const { page, problems } = await newPage(web.browser)
    await open(page, 'setclash')
    const first = page.getByTestId('advice-item').first()
    await first.waitFor({ timeout: 120_000 })
    expect(await first.getAttribute('data-diagnosis')).toBe('conflict')
    expect(await first.textContent()).toMatch(/a fully associative 32 KiB L1 would have hit them/)
    await page.getByTestId('tab-evictors').click()
    const cause = page.getByTestId('evictor-cycle-cause').first()
    await cause.waitFor({ timeout: 60_000 })
    expect(await cause.getAttribute('data-cause')).toBe('conflict')
    await screenshot(page, 'advisor-outside-2-setclash-evictors')
    expect(problems).toEqual([])
    await page.close()
  })
})
