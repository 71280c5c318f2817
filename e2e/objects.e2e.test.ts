/**
 * The Data structures tab in web mode: trace the loop_index example from the launch dialog,
 * see its exact ranking as the tab opens, compare the methods, and check what a person sees:
 * exact puts fl_layer first, the raw
 * approximation is fooled by the loop index ti, loop compensation is not, and the perf line
 * says plainly whether hardware samples are available here.
 */
import { describe, expect, it } from 'vitest'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

const web = useWebMode()

describe('Data structures tab', () => {
  it('ranks loop_index data structures four ways next to exact', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('launch-dialog').waitFor()
    await page.getByTestId('example-loop_index').click()
    const kernel = page.getByTestId('function-kernel')
    await kernel.waitFor({ timeout: 30_000 })
    expect(await kernel.isChecked()).toBe(true)
    await page.getByTestId('start-trace').click()
    await page.getByTestId('source-view').waitFor({ timeout: 240_000 })

    await page.getByTestId('tab-objects').click()
    // The exact ranking as the tab opens (the trace stored it): no button to press.
    const table = page.getByTestId('objects-table')
    await table.waitFor({ timeout: 60_000 })
    expect((await table.locator('thead th').allTextContents()).map((t) => t.trim())).toEqual(['Data structure', 'Kind', 'Exact'])
    expect((await page.getByTestId('objects-row').locator('th').allTextContents()).map((t) => t.trim()).slice(0, 4)).toEqual(['fl_layer', 'Y', 'tds', 'bus'])
    expect(await page.getByTestId('objects-compute').textContent()).toBe('Compare methods')
    expect(await page.getByTestId('objects-rho').count()).toBe(0) // nothing to compare yet
    await screenshot(page, 'objects-0-exact')
    // The default period is scaled to the run: the field is empty, "auto".
    expect(await page.getByTestId('objects-sample-every').inputValue()).toBe('')
    expect(await page.getByTestId('objects-sample-every').getAttribute('placeholder')).toBe('auto')
    await page.getByTestId('objects-sample-every').fill('101')
    await page.getByTestId('objects-compute').click()
    await table.locator('thead th').filter({ hasText: 'sample:101' }).waitFor({ timeout: 240_000 })

    const headers = (await table.locator('thead th').allTextContents()).map((t) => t.trim())
    expect(headers).toEqual(['Data structure', 'Kind', 'Exact', 'sample:101', 'search:10', 'approx:raw', 'approx:loop', 'approx:skid'])
    const rows = page.getByTestId('objects-row')
    const names = (await rows.locator('th').allTextContents()).map((t) => t.trim())
    expect(names.slice(0, 4)).toEqual(['fl_layer', 'Y', 'tds', 'bus'])
    // The exact share of fl_layer: 8 of its 15 misses per 8 iterations (53.3%).
    const first = (await rows.first().locator('td').allTextContents()).map((t) => t.trim())
    expect(first[1]).toMatch(/^53\.\d% #1$/)
    // The loop index ti: never ranked by exact, first for approx:raw, absent after loop compensation.
    const ti = rows.filter({ has: page.locator('th', { hasText: /^ti$/ }) })
    const tiCells = (await ti.locator('td').allTextContents()).map((t) => t.trim())
    expect(tiCells[1]).toBe('–')
    expect(tiCells[4]).toMatch(/#1$/)
    expect(tiCells[5]).toBe('–')
    const rho = (await page.getByTestId('objects-rho').locator('td').allTextContents()).map((t) => t.trim())
    expect(rho[3]).toMatch(/^1\.00 \(same order\)$/) // approx:loop
    expect(Number(rho[2]!.split(' ')[0])).toBeLessThan(0.9) // approx:raw
    expect(await page.getByTestId('objects-cost').textContent()).toMatch(/interrupts/)
    expect(await page.getByTestId('objects-perf').textContent()).toMatch(/Hardware cache-miss samples \(perf record\): (not supported on this machine: .+|are available)/)
    // Every method says what part of the run it saw.
    const coverage = (await page.getByTestId('objects-coverage').locator('li').allTextContents()).map((t) => t.trim())
    expect(coverage).toHaveLength(6)
    for (const line of coverage) expect(line).toMatch(/whole run/)
    await screenshot(page, 'objects-1-ranked')
    expect(problems).toEqual([])
    await page.close()
  })
})
