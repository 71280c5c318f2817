/**
 * The end-to-end slice in web mode: launch the `conflict` example from the UI, watch it
 * run, check the heatmap puts the conflict line (conflict.c:30) on top, hover it, reopen
 * the session from the recent list after a reload; and a bad program path fails clearly.
 */
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'
import { example } from '../src/main/testing/cli-runner'

const HOT_TEXT = 'sum += S1[i] + S2[i] + S3[i];'
const HOT_LINE = 30

const web = useWebMode()

/** Monaco renders spaces as U+00A0; compare on normalized text. */
async function lineBox(page: Page, text: string) {
  const lines = page.locator('[data-testid="source-view"] .view-line')
  const count = await lines.count()
  for (let i = 0; i < count; i++) {
    const t = ((await lines.nth(i).textContent()) ?? '').replace(/\u00a0/g, ' ')
    if (t.includes(text)) return lines.nth(i).boundingBox()
  }
  return null
}

function num(text: string | null): number {
  return Number((text ?? '').replace(/[^\d]/g, ''))
}

async function expectHotLine(page: Page) {
  const view = page.getByTestId('source-view')
  await expect.poll(() => view.getAttribute('data-file'), { timeout: 30_000 }).toMatch(/conflict\.c$/)
  await expect.poll(() => view.getAttribute('data-hottest-line'), { timeout: 30_000 }).toBe(String(HOT_LINE))

  // The painted hottest decoration sits on the very line that holds the kernel's statement.
  await page.locator('[data-testid="source-view"] .heat-hottest').first().waitFor({ timeout: 30_000 })
  const hot = await page.locator('[data-testid="source-view"] .heat-hottest').first().boundingBox()
  const line = await lineBox(page, HOT_TEXT)
  expect(line, 'the conflict line is rendered').not.toBeNull()
  expect(hot, 'a line carries the hottest heat class').not.toBeNull()
  expect(Math.abs(hot!.y - line!.y)).toBeLessThan(2)

  // The table, sorted by misses (its default), has a conflict.c:30 reference on top.
  const first = page.getByTestId('reference-row').first()
  await first.waitFor()
  expect(await first.getAttribute('data-location')).toMatch(/conflict\.c:30$/)
  return line!
}

describe('web-mode slice', () => {
  it('traces the conflict example and paints conflict.c:30 hottest', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    const dialog = page.getByTestId('launch-dialog')
    await dialog.waitFor()

    // A fresh STRIDE_HOME is a first-time user: examples come first.
    await expect.poll(() => page.getByTestId('source-example').isChecked()).toBe(true)
    await page.getByTestId('example-conflict').click()
    const sumfunc = page.getByTestId('function-sumfunc')
    await sumfunc.waitFor({ timeout: 30_000 })
    expect(await sumfunc.isChecked()).toBe(true)

    // The picker filters as you type.
    await page.getByTestId('function-filter').fill('sumf')
    expect(await page.locator('[data-testid^="function-"][type="checkbox"]').count()).toBe(1)
    await screenshot(page, 'slice-1-launch-dialog')

    await page.getByTestId('start-trace').click()
    await dialog.waitFor({ state: 'detached' })
    // Progress is shown while the job runs (it may already be done on a fast machine).
    const running = page.getByTestId('progress-readout')
    if (await running.isVisible()) await screenshot(page, 'slice-2-running')

    await page.getByTestId('source-view').waitFor({ timeout: 240_000 })
    const failed = page.getByTestId('job-failed')
    if (await failed.isVisible()) throw new Error(`trace failed: ${await failed.textContent()}`)
    const line = await expectHotLine(page)

    // Hover the hot line: the card shows its reads and misses.
    await page.mouse.move(line.x + 80, line.y + line.height / 2)
    const card = page.getByTestId('hover-card')
    await card.waitFor({ timeout: 10_000 })
    expect(await card.getAttribute('data-line')).toBe(String(HOT_LINE))
    expect(num(await card.getByTestId('stat-reads').textContent())).toBeGreaterThan(0)
    expect(num(await card.getByTestId('stat-misses-L1').textContent())).toBeGreaterThan(0)
    await screenshot(page, 'slice-3-session-hover')

    // A table row jumps to its line (keyboard: the row is focusable, Enter activates).
    await page.mouse.move(0, 0)
    await page.getByTestId('reference-row').first().focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByTestId('source-view').getAttribute('data-selected-line')).toBe(String(HOT_LINE))
    expect(await page.getByTestId('line-details').textContent()).toContain('conflict.c:30')
    // The pinned line lists its references with their source expressions and stream metrics
    // (METRIC Fig. 15: three single-stride-8 streams), and the sidebar has Mohan's statistics.
    const refs = page.getByTestId('line-details').getByTestId('line-references')
    expect(await refs.textContent()).toMatch(/A_Read_30@sumfunc\+0x[0-9a-f]+\s*S1\[i\]\s*100\.0%/)
    expect(await refs.textContent()).toContain('8 (100.0%)')
    // Mohan's statistics per function are computed on request: one click, then shown (and kept).
    await page.getByTestId('compute-function-streams').click()
    await page.getByTestId('function-streams').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('function-streams').textContent()).toMatch(/sumfunc\s*regularity 100\.0%/)
    await screenshot(page, 'slice-3b-line-details')

    // After a reload the session is one click away in the recent list.
    await page.reload()
    const recent = page.getByTestId('recent-session').first()
    await recent.waitFor({ timeout: 30_000 })
    expect(await recent.textContent()).toContain('conflict')
    await screenshot(page, 'slice-4-after-reload')
    await recent.click()
    await page.getByTestId('source-view').waitFor({ timeout: 60_000 })
    await expectHotLine(page)
    // Kept in the session: reopened, the statistics are there without a click.
    expect(await page.getByTestId('function-streams').textContent()).toMatch(/sumfunc\s*regularity 100\.0%/)
    expect(await page.getByTestId('compute-function-streams').count()).toBe(0)
    await screenshot(page, 'slice-5-reopened')

    expect(problems).toEqual([])
    await page.close()
  })

  it('shows a clear error for a program that does not exist', async () => {
    const { page } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('source-custom').check()
    const missing = '/nonexistent/stride-e2e/prog'
    await page.getByTestId('program-path').fill(missing)

    // Reading its symbols fails at once, naming the path.
    const inspect = page.getByTestId('inspect-error')
    await inspect.waitFor({ timeout: 30_000 })
    expect(await inspect.textContent()).toContain(missing)

    // Starting anyway is refused with the same kind of one-line explanation.
    await page.getByTestId('start-trace').click()
    const shown = page.locator('[data-testid="launch-error"], [data-testid="job-error"]').first()
    await shown.waitFor({ timeout: 60_000 })
    const text = (await shown.textContent()) ?? ''
    expect(text).toContain(missing)
    expect(text.length).toBeLessThan(400)
    await screenshot(page, 'slice-6-bad-path')

    // Escape closes the dialog.
    await page.keyboard.press('Escape')
    await page.getByTestId('launch-dialog').waitFor({ state: 'detached' })
    await page.close()
  })

  it('cancelling a running trace keeps what was recorded', async () => {
    const { page } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    // spin runs until it is stopped (mult's 3 M accesses now record in about a second, so a
    // cancel could arrive after the end): cancel part-way is certain.
    await page.getByTestId('source-custom').check()
    await page.getByTestId('program-path').fill(example('spin'))
    await page.getByTestId('function-sumfunc').check({ timeout: 30_000 })
    await page.getByTestId('start-trace').click()

    const readout = page.getByTestId('progress-readout')
    await expect
      .poll(async () => ((await readout.getAttribute('data-phase')) === 'tracing' ? num(await page.getByTestId('progress-events').textContent()) : 0), {
        timeout: 120_000,
        interval: 250
      })
      .toBeGreaterThan(0)
    await screenshot(page, 'slice-7-cancel-running')
    await page.getByTestId('cancel-job').click()

    // The job ends with the partial session opened, marked partial.
    await page.getByTestId('partial-badge').waitFor({ timeout: 120_000 })
    expect(num(await page.getByTestId('session-events').textContent())).toBeGreaterThan(0)
    await page.locator('[data-testid="source-view"] .view-line').first().waitFor({ timeout: 60_000 })
    await screenshot(page, 'slice-8-cancelled-session')
    await page.close()
  })
})
