/**
 * The Query view in web mode on the bundled `conflict` example (traced and simulated with
 * the CLI, opened from the recent list): typing [{A,B},{sumfunc},{misses}] shows the
 * simulator's numbers; clicking builds the same text; heatmap and bar charts draw; CSV
 * export downloads the rows; bad notation points at its column; array sections answer;
 * names the run does not have are errors naming them, with no result left drawn.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { example, fixedEnv, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { launchChromium, newPage, screenshot } from './support/browser'
import { startWebServer, type WebServer } from './support/serve'

let server: WebServer
let browser: Browser
const dir = tempDir('e2e-query')
const env = fixedEnv(dir)
const session = join(dir, 'conflict.stride')
/** Per variable, the simulator's L1 misses in sumfunc (from `stride report`). */
const expected = new Map<string, number>()

beforeAll(async () => {
  strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--out', session], env)
  strideOk(['simulate', session, '--cache', 'L1:128K:2:128'], env)
  const refs = (JSON.parse(strideOk(['report', session, '--by', 'reference', '--json'], env)) as {
    references: Array<{ variable: string | null; function?: string | null; levels: Record<string, { misses: number }> }>
  }).references
  for (const r of refs) if (r.variable) expected.set(r.variable, (expected.get(r.variable) ?? 0) + r.levels.L1!.misses)
  server = await startWebServer()
  // The session is one click away, as after opening it once.
  writeFileSync(join(server.home, 'recent.json'), JSON.stringify([{ path: session, program: example('conflict'), openedAt: new Date().toISOString() }]))
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

async function runQuery(page: Page, text: string) {
  const input = page.getByTestId('query-input')
  await input.fill(text)
  await input.press('Enter')
  await expect.poll(() => page.getByTestId('query-output').getAttribute('data-query'), { timeout: 60_000 }).toBe(text.replace(/\s+/g, ''))
  await page.getByTestId('query-running').waitFor({ state: 'detached', timeout: 60_000 })
}

const cellValue = (page: Page, data: string, code: string, metric: string) =>
  page.locator(`[data-testid="slice-row"][data-data="${data}"][data-code="${code}"] td[data-metric="${metric}"]`).getAttribute('data-value')

describe('query slices in web mode', () => {
  it('answers SIGMA queries typed or clicked, draws them, exports them', async () => {
    expect(expected.get('A')).toBe(8192)
    const { page, problems } = await newPage(browser)
    await page.goto(server.url)
    await page.getByTestId('recent-session').first().click()
    await page.getByTestId('tab-query').click({ timeout: 60_000 })
    await page.getByTestId('query-input').waitFor()

    // Typed: the simulator's numbers per variable.
    await runQuery(page, '[{A,B},{sumfunc},{misses}]')
    expect(Number(await cellValue(page, 'A', 'sumfunc', 'misses'))).toBe(expected.get('A'))
    expect(Number(await cellValue(page, 'B', 'sumfunc', 'misses'))).toBe(expected.get('B'))
    expect(await page.getByTestId('slice-row').count()).toBe(2)
    expect(Number(await page.getByTestId('slice-total').locator('td').first().getAttribute('data-value'))).toBe(expected.get('A')! + expected.get('B')!)
    await screenshot(page, 'query-1-typed-table')

    // Point and click builds the same text.
    await runQuery(page, '[{*},{*},{misses}]')
    await screenshot(page, 'query-2-all')
    await page.getByTestId('axis-data-*').uncheck()
    await page.getByTestId('axis-data-A').check()
    await page.getByTestId('axis-data-B').check()
    await page.getByTestId('axis-code-*').uncheck()
    await page.getByTestId('axis-code-sumfunc').check()
    expect(await page.getByTestId('query-input').inputValue()).toBe('[{A,B},{sumfunc},{misses}]')
    await expect.poll(() => page.getByTestId('query-output').getAttribute('data-query'), { timeout: 60_000 }).toBe('[{A,B},{sumfunc},{misses}]')
    expect(Number(await cellValue(page, 'B', 'sumfunc', 'misses'))).toBe(expected.get('B'))

    // Charts.
    await page.getByTestId('query-display').getByText('Heatmap').click()
    await page.getByTestId('slice-heatmap').waitFor()
    expect(await page.getByTestId('heat-cell').count()).toBe(2)
    expect(await page.getByTestId('heat-cell').first().getAttribute('data-value')).toBe(String(expected.get('A')))
    await screenshot(page, 'query-3-heatmap')
    await page.getByTestId('query-display').getByText('Bar').click()
    await page.getByTestId('slice-bars').waitFor()
    expect(await page.getByTestId('slice-bar').count()).toBe(2)
    await screenshot(page, 'query-4-bar')
    await page.getByTestId('query-display').getByText('Pie').click()
    await page.getByTestId('slice-pie').waitFor()
    expect(await page.getByTestId('pie-slice').count()).toBe(2)
    await screenshot(page, 'query-5-pie')

    // Export: the CSV holds the rows as the table shows them; the PNG is a real image.
    const csvDownload = page.waitForEvent('download')
    await page.getByTestId('export-csv').click()
    const csv = readFileSync((await (await csvDownload).path())!, 'utf8')
    expect(csv.split('\r\n')).toEqual(['data,code,misses', `A,sumfunc,${expected.get('A')}`, `B,sumfunc,${expected.get('B')}`, `(sum),,${expected.get('A')! + expected.get('B')!}`])
    const pngDownload = page.waitForEvent('download')
    await page.getByTestId('export-png').click()
    const png = readFileSync((await (await pngDownload).path())!)
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(png.length).toBeGreaterThan(2000)

    // Array sections, exact: the two halves of A take half of A's misses each.
    await page.getByTestId('query-display').getByText('Table').click()
    await runQuery(page, '[{A[0:4095],A[4096:8191]},{sumfunc},{loads,misses}]')
    expect(Number(await cellValue(page, 'A[0:4095]', 'sumfunc', 'misses'))).toBe(expected.get('A')! / 2)
    expect(Number(await cellValue(page, 'A[4096:8191]', 'sumfunc', 'loads'))).toBe(4096)
    await screenshot(page, 'query-6-sections')

    // Bad notation: the error names the problem and its column; nothing runs.
    await page.getByTestId('query-input').fill('[{A,B},{sumfunc},{mises}]')
    const error = page.getByTestId('query-text-error')
    await error.waitFor()
    expect(await error.textContent()).toMatch(/unknown metric "mises".*column 19/)
    expect(await page.getByTestId('query-run').isDisabled()).toBe(true)
    // The last result is not left drawn under the error.
    expect(await page.getByTestId('query-output').count()).toBe(0)
    await page.getByTestId('query-result-hidden').waitFor()
    await screenshot(page, 'query-7-bad-notation')

    // A misspelled function is an error naming it, not a table of zeros.
    await page.getByTestId('query-input').fill('[{A,B},{sumfnc},{misses}]')
    await page.getByTestId('query-input').press('Enter')
    const unknown = page.getByTestId('query-error')
    await unknown.waitFor({ timeout: 60_000 })
    expect(await unknown.textContent()).toBe('Query: no traced function "sumfnc"; did you mean sumfunc?')
    expect(await page.getByTestId('query-output').count()).toBe(0)
    // So is a data structure the run does not have.
    await page.getByTestId('query-input').fill('[{Q},{sumfunc},{misses}]')
    await page.getByTestId('query-input').press('Enter')
    await expect.poll(() => unknown.textContent(), { timeout: 60_000 }).toMatch(/^Query: no data structure "Q" in this run; its data structures are A, B, C/)
    await screenshot(page, 'query-8-unknown-name')

    expect(problems).toEqual([])
    await page.close()
  })
})
