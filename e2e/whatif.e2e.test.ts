/**
 * Explore flows on the conflict example (METRIC 10.3) in web mode: walk the hottest lines by
 * keyboard, paint by other metrics, run a padding what-if from the form and read the drop in
 * the diff view and the Δ paint; compare runs; switch theme.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { example, fixedEnv, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

let session: string
const web = useWebMode(() => {
  // A traced, simulated session made with the CLI, opened from the welcome screen.
  const dir = tempDir('stride-e2e-whatif-')
  const env = fixedEnv(dir)
  session = join(dir, 'conflict.stride')
  strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--out', session], env)
  strideOk(['simulate', session, '--cache', 'L1:128K:2:128'], env)
}, 240_000)

const num = (t: string | null) => Number((t ?? '').replace(/[^\d-]/g, ''))

describe('what-if and compare', () => {
  it('pads B and C by 1 KiB and shows the conflict misses gone', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('open-session-path').fill(session)
    await page.getByTestId('open-session').click()
    const view = page.getByTestId('source-view')
    await expect.poll(() => view.getAttribute('data-hottest-line'), { timeout: 60_000 }).toBe('30')

    // The code tree lists file → function → loop by misses; a function opens at its hottest line.
    const fn = page.getByTestId('code-function').filter({ hasText: 'sumfunc' })
    await fn.click()
    await expect.poll(() => view.getAttribute('data-selected-line')).toBe('30')
    await page.getByTestId('code-tree').getByRole('button', { name: 'Expand sumfunc' }).click()
    // The loop is known by its `for` line (its back edge's), not its body's.
    expect(await page.getByTestId('code-tree').textContent()).toMatch(/conflict\.c[\s\S]*sumfunc[\s\S]*loop@29/)

    // Line 33 (the closing brace reading its return address once) is noise: not painted, said
    // in the legend. Shown, N walks from the hottest line down (and pins it); Shift+N back up.
    expect(await page.getByTestId('heat-noise').textContent()).toMatch(/^1 single-access line not painted$/)
    await page.getByTestId('show-noise').check()
    await page.locator('body').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('n')
    await expect.poll(() => view.getAttribute('data-selected-line')).toBe('33')
    await page.keyboard.press('Shift+N')
    await expect.poll(() => view.getAttribute('data-selected-line')).toBe('30')
    await page.getByTestId('show-noise').uncheck()

    // Other paints: the legend names what the color means.
    await page.getByTestId('metric-select').selectOption('spatialWaste')
    await expect.poll(() => page.getByTestId('heat-legend').textContent()).toContain('spatial reuse')
    await screenshot(page, 'whatif-1-spatial-paint')
    await page.getByTestId('metric-select').selectOption('misses')

    // The advisor's suggestion opens in the what-if form, filled in, with its reason.
    await page.keyboard.press('Alt+3')
    await page.getByTestId('advice-edit').first().click()
    const form = page.getByTestId('whatif-form')
    await form.waitFor()
    expect(await page.getByTestId('whatif-reason').textContent()).toMatch(/evictor cycle/)
    expect(await page.getByTestId('layout-row').count()).toBe(2)
    await page.getByTestId('whatif-reason').getByRole('button').click()
    await expect.poll(() => page.getByTestId('layout-row').count()).toBe(0)

    // Alt+4 is the what-if form itself, with the run's cache.
    await page.keyboard.press('Alt+4')
    await form.waitFor()
    expect(await page.getByTestId('cache-size-0').inputValue()).toBe('128K')
    await page.getByTestId('add-padding').click()
    await page.getByTestId('layout-variable-0').selectOption('B')
    await page.getByTestId('add-padding').click()
    await page.getByTestId('layout-variable-1').selectOption('C')
    await page.getByTestId('layout-bytes-1').fill('1K')
    await screenshot(page, 'whatif-2-form')
    // The banner says what runs (a simulation of the recorded trace, not the program). A what-if
    // on the warm pool can end within a frame or two, so its texts are collected as they appear.
    // (A script string: this file is type-checked without the DOM's types.)
    await page.evaluate(`{
      const seen = (window.bannerTexts = [])
      const look = () => {
        const text = document.querySelector('[data-testid="job-running"]')?.textContent
        if (text) seen.push(text)
      }
      new MutationObserver(look).observe(document.body, { childList: true, subtree: true, characterData: true })
    }`)
    await page.getByTestId('run-whatif').click()
    // The new run is shown in Compare against run 1, labelled by what the what-if changed; run 1
    // stays the active run until the user makes run 2 active.
    await expect.poll(() => page.getByTestId('tab-compare').getAttribute('aria-selected'), { timeout: 120_000 }).toBe('true')
    const added = page.getByTestId('run-added')
    await added.waitFor({ timeout: 30_000 })
    expect(await added.textContent()).toMatch(/^Run 2 added: pad B by \S+, pad C by 1K — run 1 stays active\.Make active$/)
    expect(await page.getByTestId('run-totals').textContent()).toMatch(/^Run 1/)
    expect(await page.getByTestId('baseline-config').textContent()).toBe('baseline: run 1 · L1 128K 2-way 128B')
    expect(await page.getByTestId('compared-label').textContent()).toMatch(/^run 2 · pad B by \S+, pad C by 1K$/)
    expect(await page.getByTestId('run-label').allTextContents()).toEqual([expect.stringMatching(/^pad B by \S+, pad C by 1K$/), 'L1 128K 2-way 128B'])
    const banners = (await page.evaluate('window.bannerTexts')) as string[]
    expect(banners.length).toBeGreaterThan(0)
    for (const text of banners) expect(text).not.toMatch(/launching the program/)
    const total = page.getByTestId('diff-total').first()
    await total.waitFor({ timeout: 30_000 })
    const [before, after] = ((await total.locator('.diff-total-value').textContent()) ?? '').split('→').map(num)
    expect(before).toBeGreaterThan(20_000)
    // METRIC 10.3: every read missed; padded, one in sixteen does.
    expect(after! / before!).toBeLessThan(0.1)
    expect(await total.getByTestId('diff-total-delta').textContent()).toMatch(/^-[\d,]+ \(-9\d\.\d%\)$/)
    const firstLine = page.getByTestId('diff-lines-row').first()
    expect(await firstLine.getAttribute('data-key')).toBe('conflict.c:30')
    expect(Number(await firstLine.getAttribute('data-delta'))).toBeLessThan(-20_000)
    expect(await page.getByTestId('diff-variables').textContent()).toMatch(/A[\s\S]*B[\s\S]*C/)
    await screenshot(page, 'whatif-3-compare')

    // The diff exports as CSV, every row with both runs' figures.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('diff-lines-export').getByTestId('export-csv').click()])
    const csv = readFileSync((await download.path())!, 'utf8').split('\r\n')
    expect(csv[0]).toBe('Line,baseline accesses,accesses,baseline misses,misses,delta misses,baseline miss ratio,miss ratio,delta miss ratio')
    expect(csv[1]).toMatch(/conflict\.c:30,24576,24576,24576,\d+,-\d+,1,0\.06/)

    // Made active by the user: run 2 is the session's run now, still compared with run 1.
    await page.getByTestId('make-active').click()
    await expect.poll(() => page.getByTestId('run-totals').textContent(), { timeout: 30_000 }).toMatch(/^Run 2/)
    expect(await page.getByTestId('run-added').count()).toBe(0)
    // Renamed in the Runs list: the label the user gave is shown (and stored in the session).
    await page.getByTestId('run-rename').first().click()
    await page.getByTestId('run-rename-input').fill('padded B and C')
    await page.getByTestId('run-rename-save').click()
    await expect.poll(() => page.getByTestId('run-label').first().textContent()).toBe('padded B and C')
    expect(await page.getByTestId('compared-label').textContent()).toBe('run 2 · padded B and C')

    // A line of the diff opens the source painted by Δ misses: line 30 is green (fewer).
    await firstLine.click()
    await expect.poll(() => view.getAttribute('data-selected-line')).toBe('30')
    expect(await page.getByTestId('metric-select').inputValue()).toBe('delta')
    await page.locator('[data-testid="source-view"] .diff-better-5').first().waitFor({ timeout: 10_000 })
    await screenshot(page, 'whatif-4-delta-paint')

    // Dark theme applies to the page and the editor.
    await page.getByTestId('theme-select').selectOption('dark')
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark')
    await page.locator('[data-testid="source-view"] .monaco-editor.vs-dark').waitFor({ timeout: 10_000 })
    await screenshot(page, 'whatif-5-dark')

    expect(problems).toEqual([])
    await page.close()
  }, 300_000)

  it('offers what the simulator does: a prefetcher with its timing stated, write policy, inclusion, a data TLB (issue 47)', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('open-session-path').fill(session)
    await page.getByTestId('open-session').click()
    await expect.poll(() => page.getByTestId('source-view').getAttribute('data-hottest-line'), { timeout: 60_000 }).not.toBeNull()
    await page.keyboard.press('Alt+4')
    const form = page.getByTestId('whatif-form')
    await form.waitFor()
    // The timeliness assumption is said where the prefetcher is chosen.
    expect(await page.getByTestId('prefetch-timing').textContent()).toMatch(/^Prefetch timing: the simulator has no clock, so a prefetched line is in the cache at once.*upper bound/)
    // Inclusion belongs to an outer level: the first level's box is disabled.
    expect(await page.getByTestId('cache-inclusive-0').isDisabled()).toBe(true)
    await page.getByTestId('cache-prefetch-0').selectOption('stride')
    await page.getByTestId('cache-write-0').selectOption('write-through')
    await page.getByTestId('cache-allocate-0').uncheck()
    await page.getByTestId('add-tlb').click()
    expect(await page.getByTestId('tlb-entries-0').inputValue()).toBe('64')
    // A TLB the contract refuses is refused in the form, naming the level.
    await page.getByTestId('tlb-entries-0').fill('48')
    await page.getByTestId('run-whatif').click()
    expect(await page.getByTestId('whatif-error').textContent()).toBe('DTLB: the number of TLB sets (entries / associativity) must be a power of two.')
    await page.getByTestId('tlb-entries-0').fill('64')
    await screenshot(page, 'whatif-6-hierarchy-options')
    await page.getByTestId('run-whatif').click()
    await expect.poll(() => page.getByTestId('tab-compare').getAttribute('aria-selected'), { timeout: 120_000 }).toBe('true')
    const added = page.getByTestId('run-added')
    await added.waitFor({ timeout: 30_000 })
    const label = (await added.textContent()) ?? ''
    expect(label).toMatch(/stride prefetcher/)
    expect(label).toMatch(/write-through/)
    expect(label).toMatch(/DTLB 64 entries 4-way 4KB? pages/)
    // Made active, the form reports how the run's prefetches fared under that assumption.
    await page.getByTestId('make-active').click()
    await expect.poll(() => page.getByTestId('run-totals').textContent(), { timeout: 30_000 }).toMatch(/^Run 3/)
    await page.keyboard.press('Alt+4')
    await expect.poll(() => page.getByTestId('prefetch-timing').textContent()).toMatch(/Run 3: L1: [\d,]+ prefetches, [\d,]+ used before they left \(\d+%\)\.$/)
    expect(await page.getByTestId('cache-prefetch-0').inputValue()).toBe('stride')
    expect(await page.getByTestId('cache-write-0').inputValue()).toBe('write-through')
    expect(await page.getByTestId('cache-allocate-0').isChecked()).toBe(false)
    expect(await page.getByTestId('tlb-page-0').inputValue()).toBe('4K')
    expect(problems).toEqual([])
    await page.close()
  }, 300_000)
})
