/**
 * The advisor in web mode on the bundled conflict example: it diagnoses the A↔B↔C evictor
 * cycle as conflict misses with METRIC's evidence (all stride 8, miss ratio 1.00, spatial
 * reuse 0.06) and suggests padding; one click runs that what-if, the new run opens, and the
 * misses drop (METRIC 10.3.2: to about one access in 16).
 */
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'
import { launchExample } from './support/launch-example'

const web = useWebMode()

async function l1Misses(page: Page): Promise<number> {
  const totals = (await page.getByTestId('run-totals').textContent()) ?? ''
  const m = /L1 ([\d,]+) misses/.exec(totals)
  if (!m) throw new Error(`no L1 total in "${totals}"`)
  return Number(m[1]!.replace(/,/g, ''))
}

describe('advisor', () => {
  it('suggests padding for the conflict cycle, and one click runs it and the misses drop', async () => {
    const { page, problems } = await newPage(web.browser)
    await launchExample(page, web.server.url, 'conflict')
    const before = await l1Misses(page)
    expect(before).toBeGreaterThan(24_000)

    await page.getByTestId('tab-advisor').click()
    const first = page.getByTestId('advice-item').first()
    await first.waitFor({ timeout: 60_000 })
    expect(await first.getAttribute('data-diagnosis')).toBe('conflict')
    const text = (await first.textContent()) ?? ''
    expect(text).toMatch(/Conflict misses: evictor cycle [ABC]↔[ABC]↔[ABC]/)
    expect(text).toContain('all regular, all stride 8')
    expect(text).toContain('miss ratio 1.00')
    expect(text).toContain('spatial reuse 0.06')
    expect(await first.getByTestId('advice-suggestion').textContent()).toContain('pad the arrays; try +1 KiB between them')
    const action = first.getByTestId('advice-action')
    expect(await action.textContent()).toMatch(/^Pad [ABC] \+1 KiB, [ABC] \+1 KiB$/)
    await screenshot(page, 'advisor-1-conflict')

    const view = page.getByTestId('advisor-view')
    const runBefore = Number(await view.getAttribute('data-run'))
    await action.click()
    // The what-if runs, then its run opens in Compare, against this one.
    await expect.poll(() => page.getByTestId('tab-compare').getAttribute('aria-selected'), { timeout: 180_000 }).toBe('true')
    await page.getByTestId('diff-total').first().waitFor({ timeout: 30_000 })
    await screenshot(page, 'advisor-2a-compare')
    // The what-if's run becomes the active one only when the user picks it.
    await page.getByTestId('make-active').click()
    // Back on the advisor, the new run is diagnosed: the conflict is gone.
    await page.getByTestId('tab-advisor').click()
    await expect.poll(() => page.getByTestId('advisor-view').getAttribute('data-run'), { timeout: 60_000 }).toBe(String(runBefore + 1))
    expect(await page.getByTestId('run-item').count()).toBe(2)
    expect(await page.locator('[data-testid="advice-item"][data-diagnosis="conflict"]').count()).toBe(0)
    await screenshot(page, 'advisor-2-after-padding')
    await page.emulateMedia({ colorScheme: 'dark' })
    await screenshot(page, 'advisor-2b-after-padding-dark')
    await page.emulateMedia({ colorScheme: 'light' })

    const after = await l1Misses(page)
    console.log(`[advisor] L1 misses before ${before}, after padding ${after}`)
    expect(after).toBeLessThan(before / 8)
    await screenshot(page, 'advisor-3-source-after')

    expect(problems).toEqual([])
    await page.close()
  })
})
