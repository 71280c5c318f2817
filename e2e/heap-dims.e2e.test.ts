/**
 * Heap arrays with dimensions in web mode (issue 47): a session of two heap matrices walked by
 * columns (src/main/symbols/fixtures/heap-colwalk.c, built -g -O2), `m` typed `double (*)[512]`
 * and `flat` a plain `double *`. The What-if padding list shows both with their dimensions,
 * flat's "(inferred from strides)", and growing m's rows to 520 elements takes colsum's misses
 * down to what the hand-padded build misses (heap-dims.integration.test.ts); the Query view's data axis says
 * the same of flat, and a slice of m's first column answers.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, ROOT, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

let session: string
const web = useWebMode(() => {
  const dir = tempDir('e2e-heap-dims')
  const env = fixedEnv(dir)
  const program = join(dir, 'colwalk')
  const cc = spawnSync('cc', ['-g', '-O2', '-fPIE', '-pie', '-o', program, join(ROOT, 'src', 'main', 'symbols', 'fixtures', 'heap-colwalk.c')], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(`cc failed: ${cc.stderr}`)
  session = join(dir, 'colwalk.stride')
  strideOk(['trace', '--launch', program, '--functions', 'colsum,colsum_flat', '--out', session], env)
  strideOk(['simulate', session, '--cache', 'L1:32K:8:64'], env)
})

describe('heap arrays with dimensions', () => {
  it('are offered for row padding with their dimensions, inferred ones said so, and sliced by column', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.goto(web.server.url)
    await page.getByTestId('open-session-path').fill(session)
    await page.getByTestId('open-session').click()
    await page.getByTestId('source-view').waitFor({ timeout: 60_000 })

    await page.getByTestId('tab-whatif').click()
    await page.getByTestId('whatif-form').waitFor()
    await page.getByTestId('add-padding').click()
    const options = await page.getByTestId('layout-variable-0').locator('option').allTextContents()
    expect(options).toContain('m [64][512] (heap)')
    expect(options).toContain('flat [64][512] (inferred from strides) (heap)')
    const row = page.getByTestId('layout-row').first()
    await row.getByLabel('Padding 1 kind').selectOption('internal')
    await page.getByTestId('layout-variable-0').selectOption('m')
    expect(await row.getByLabel('Padding 1 dimension').locator('option').allTextContents()).toEqual(['0 (now 64)', '1 (now 512)'])
    await row.getByLabel('Padding 1 dimension').selectOption('1')
    await row.getByLabel('Padding 1 new extent').fill('520')
    await screenshot(page, 'heap-dims-1-whatif-form')
    expect(await page.getByTestId('whatif-form').textContent()).not.toMatch(/dimensions of "m" are not known|no known array dimensions/)
    // Run: the padded rows spread m's column over the sets; colsum's line loses most misses.
    await page.getByTestId('run-whatif').click()
    await expect.poll(() => page.getByTestId('tab-compare').getAttribute('aria-selected'), { timeout: 120_000 }).toBe('true')
    await expect.poll(() => page.getByTestId('compared-label').textContent(), { timeout: 30_000 }).toBe('run 2 · m dimension 1 to 520')
    const line = page.locator('[data-testid="diff-lines-row"][data-key="heap-colwalk.c:24"]')
    await line.waitFor({ timeout: 30_000 })
    // As traced every one of its 131,072 reads misses; padded, 16,384 do (the hand-padded build's count).
    expect(Number(await line.getAttribute('data-delta'))).toBe(16_384 - 131_072)
    await screenshot(page, 'heap-dims-2-compare')

    await page.getByTestId('tab-query').click()
    await page.getByTestId('query-input').waitFor()
    expect(await page.getByTestId('axis-data').textContent()).toMatch(/flat[\s\S]*double \[32768\] · \[64\]\[512\] \(inferred from strides\)/)
    const input = page.getByTestId('query-input')
    await input.fill('[{m[*,0],m},{colsum},{loads}]')
    await input.press('Enter')
    await expect.poll(() => page.getByTestId('query-output').getAttribute('data-query'), { timeout: 60_000 }).toBe('[{m[*,0],m},{colsum},{loads}]')
    await page.getByTestId('query-running').waitFor({ state: 'detached', timeout: 60_000 })
    const loads = (data: string) => page.locator(`[data-testid="slice-row"][data-data="${data}"][data-code="colsum"] td[data-metric="loads"]`).getAttribute('data-value')
    // colsum reads each of m's 64 x 512 elements 4 times; column 0 is 64 of them.
    expect(await loads('m[*,0]')).toBe(String(4 * 64))
    expect(await loads('m')).toBe(String(4 * 64 * 512))
    await screenshot(page, 'heap-dims-3-query')
    expect(problems).toEqual([])
  }, 180_000)
})
