/**
 * "What is hot" in the Launch dialog: the function picker lists functions only (no data
 * symbol such as data_start); "Find hot functions" traces the whole program once with this
 * machine's caches and ranks the picker by misses, each function with its count; "Trace the
 * hottest" traces that function alone. Screenshots go to e2e/artifacts (looked at).
 */
import { describe, expect, it } from 'vitest'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

const web = useWebMode()

describe('hot functions in the launch dialog', () => {
  it('ranks the picker after a whole-program pass, and traces the hottest in one click', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('example-micro').click()
    const boxes = page.locator('[data-testid^="function-"][type="checkbox"]')
    await page.getByTestId('function-sequential_stores').waitFor({ timeout: 30_000 })

    // Functions only: data symbols the symbol table lists beside them are not offered.
    const names = await boxes.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('function-'.length)))
    expect(names).toContain('main')
    expect(names).not.toContain('data_start')
    expect(names).not.toContain('_IO_stdin_used')
    // Before the pass: the functions with source lines, alphabetically.
    expect(names.slice(0, 4)).toEqual(['main', 'multiple_random_loads', 'random_loads', 'sequential_stores'])
    // Nothing chosen: the ranking, not the example's preset, picks what to trace.
    await page.getByRole('button', { name: 'Clear' }).click()
    expect(await page.getByTestId('trace-hottest').count()).toBe(0)

    // Keyboard: the action is a button reached and pressed like any other.
    await page.getByTestId('find-hot').focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('hot-progress').waitFor({ timeout: 30_000 })
    const hottest = page.getByTestId('trace-hottest')
    await hottest.waitFor({ timeout: 180_000 })
    expect(await hottest.textContent()).toBe('Trace the hottest: sequential_stores')
    expect(await page.getByTestId('hot-note').textContent()).toMatch(/^Ranked by D1 misses of a whole-program run \([\d,]+ in all; D1 \S+ \d+-way \d+B, LL .*\)\. Each function's own accesses, not its callees': the trace records no calls\.$/)

    // Ranked by misses, each with its count: the 8 MiB of stores first (a miss per line), then
    // the random loads of the larger table, then those of the smaller one.
    const ranked = await boxes.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('function-'.length)))
    expect(ranked.slice(0, 3)).toEqual(['sequential_stores', 'multiple_random_loads', 'random_loads'])
    const count = async (name: string) => (await page.getByTestId(`hot-count-${name}`).textContent()) ?? ''
    expect(await count('sequential_stores')).toMatch(/^[\d,]+ D1 misses · \d+\.\d%$/)
    const misses = async (name: string) => Number((await count(name)).split(' ')[0]!.replace(/,/g, ''))
    expect(await misses('sequential_stores')).toBeGreaterThan(await misses('multiple_random_loads'))
    expect(await misses('multiple_random_loads')).toBeGreaterThan(await misses('random_loads'))
    // The filter keeps the ranking's order and counts.
    await page.getByTestId('function-filter').fill('random')
    expect(await boxes.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(['function-multiple_random_loads', 'function-random_loads'])
    expect(await count('random_loads')).toMatch(/D1 misses/)
    await page.getByTestId('function-filter').fill('')
    await screenshot(page, 'hot-functions-1-ranked')

    // One click: the trace of sequential_stores alone starts, and its session opens.
    await hottest.click()
    await page.getByTestId('launch-dialog').waitFor({ state: 'detached' })
    await page.getByTestId('workspace-tabs').waitFor({ timeout: 240_000 })
    const summary = page.getByTestId('session-summary')
    await expect.poll(() => summary.locator('.fn-tag').allTextContents(), { timeout: 30_000 }).toEqual(['sequential_stores'])
    await screenshot(page, 'hot-functions-2-traced')
    expect(problems).toEqual([])
    await page.close()
  })
})
