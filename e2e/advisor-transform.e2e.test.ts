/**
 * The Advisor's code-change what-if in web mode, on the bundled mult example (METRIC 10.2:
 * B[j][i] walks a column): the column walk's item has a one-click loop transform; it runs,
 * lands on Compare, and the new run's label says which transform it simulated. The What-if
 * form then shows that transform in its loop-transform rows.
 */
import { describe, expect, it } from 'vitest'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'
import { launchExample } from './support/launch-example'

const web = useWebMode()

describe('advisor: loop transforms', () => {
  it('runs the column walk\'s interchange or tiling in one click and lands on Compare, labelled', async () => {
    const { page, problems } = await newPage(web.browser)
    await launchExample(page, web.server.url, 'mult')
    await page.getByTestId('tab-advisor').click()
    const item = page.locator('[data-testid="advice-item"]', { has: page.getByTestId('advice-code-action') }).first()
    await item.waitFor({ timeout: 60_000 })
    const code = item.getByTestId('advice-code-action')
    const label = (await code.textContent()) ?? ''
    expect(label).toMatch(/^(Interchange|Tile) the loops around mult\.c:\d+/)
    await screenshot(page, 'advisor-transform-1')
    await code.click()
    await expect.poll(() => page.getByTestId('tab-compare').getAttribute('aria-selected'), { timeout: 180_000 }).toBe('true')
    await page.getByTestId('diff-total').first().waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('compared-label').textContent()).toMatch(/^run 2 · (interchange loops at mult\.c:\d+|tile loops at mult\.c:\d+ by \d+)$/)
    await screenshot(page, 'advisor-transform-2-compare')
    // The new run, made active, carries the transform into the What-if form.
    await page.getByTestId('make-active').click()
    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('transform-row').first().waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('transform-row').count()).toBe(1)
    expect(await page.getByTestId('transform-line-0').inputValue()).toMatch(/^\d+$/)
    expect(problems).toEqual([])
    await page.close()
  })
})
