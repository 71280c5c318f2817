/**
 * Threads in web mode (issue 50): a session of four threads bumping adjacent counters
 * (src/main/analysis/sharing/fixtures/counters.c), traced and simulated with the CLI, opened
 * from the welcome screen. The access-point table gives each reference's accesses per thread; the Advisor's first card is false sharing of `counters` with its
 * multi-core padding what-if as a command; the Data structures tab finds the shared line, each
 * thread on its own element, with both figures.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, ROOT, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

let session: string
const web = useWebMode(() => {
  const dir = tempDir('stride-e2e-sharing-')
  const env = fixedEnv(dir)
  const program = join(dir, 'counters')
  const cc = spawnSync('cc', ['-g', '-O1', '-pthread', '-DLAYOUT=0', '-o', program, join(ROOT, 'src', 'main', 'analysis', 'sharing', 'fixtures', 'counters.c')], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(`cc failed: ${cc.stderr}`)
  session = join(dir, 'counters.stride')
  strideOk(['trace', '--launch', program, '--functions', 'bump', '--out', session], env)
  strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--cache', 'LL:8M:16:64'], env)
}, 240_000)

describe('threads sharing cache lines', () => {
  it('advises padding counters and lists the line each thread shares', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('open-session-path').fill(session)
    await page.getByTestId('open-session').click()
    await page.getByTestId('source-view').waitFor({ timeout: 60_000 })

    // The access-point table breaks each reference's accesses down by thread.
    const refs = page.getByTestId('references-table')
    await expect.poll(() => refs.locator('thead').textContent(), { timeout: 60_000 }).toMatch(/Threads: accesses/)
    const counter = page.getByTestId('reference-row').filter({ hasText: 'c->n' }).first()
    expect(await counter.textContent()).toMatch(/2: 20,000 · 3: 20,000 · 4: 20,000 · 5: 20,000/)

    await page.getByTestId('tab-advisor').click()
    const first = page.getByTestId('advice-item').first()
    await expect.poll(() => first.textContent(), { timeout: 60_000 }).toMatch(/False sharing: counters/)
    expect(await first.getByTestId('advice-command').textContent()).toMatch(/--cores 4 --interleave 1 .*--dims counters=4x1@8 --pad-dim counters=1:8/)
    expect(await first.getByTestId('advice-action').count()).toBe(0)

    await page.getByTestId('tab-objects').click()
    await page.getByTestId('shared-lines-find').click()
    const table = page.getByTestId('shared-lines-table')
    await table.waitFor({ timeout: 60_000 })
    const rows = table.locator('tbody tr')
    expect(await rows.count()).toBe(1)
    const cells = (await rows.first().locator('td').allTextContents()).map((t) => t.trim())
    expect(cells[1]).toBe('counters')
    expect(cells[2]).toBe('false sharing')
    for (let i = 0; i < 4; i++) expect(cells[3]).toContain(`counters[${i}]`)
    expect(await page.getByTestId('shared-lines-summary').textContent()).toMatch(/fineEstimate: .*upper bound/)
    await screenshot(page, 'sharing-1-lines')
    expect(problems).toEqual([])
  })
})
