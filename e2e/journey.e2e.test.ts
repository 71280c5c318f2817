/**
 * A newcomer's first session on their own program (not a bundled example): a linked-list walk
 * plus a matrix product, built as a user would (cc -g -O2, PIE), launched from the UI at
 * 1280x720. What a person sees: the code pane shows 100+ characters beside the table, the
 * advisor's first card names the reference with most misses, a misspelled query is an error
 * with no stale chart, and a one-click what-if ends on the before/after comparison.
 * Screenshots of every view at 1280x720 and 1920x1080 go to e2e/artifacts (looked at).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, tempDir } from '../src/main/testing/cli-runner'
import { artifactsDir } from './support/browser'
import { useWebMode } from './support/web-mode'

const dir = tempDir('e2e-journey')
const fixtures = join(ROOT, 'src', 'main', 'analysis', 'advice', 'fixtures')
const program = join(dir, 'listmult')

const web = useWebMode(() => {
  const cc = spawnSync('cc', ['-g', '-O2', '-fPIE', '-pie', '-o', program, join(fixtures, 'listmult.c'), join(fixtures, 'list.c')], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(cc.stderr)
})

/** Characters the code pane shows on one line: its text area's width over one character's. */
async function visibleColumns(page: Page): Promise<number> {
  // Evaluated in the page (a string: this file is type-checked without the DOM library).
  return page.evaluate(`(() => {
    const editor = document.querySelector('[data-testid="source-view"] .monaco-editor')
    const lines = editor && editor.querySelector('.view-lines')
    const scrollable = editor && editor.querySelector('.monaco-scrollable-element.editor-scrollable')
    if (!editor || !lines || !scrollable) return 0
    const probe = document.createElement('span')
    probe.textContent = 'x'.repeat(100)
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;font:' + getComputedStyle(lines).font
    lines.appendChild(probe)
    const char = probe.getBoundingClientRect().width / 100
    probe.remove()
    return Math.floor(scrollable.clientWidth / char)
  })()`)
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300) // layout settles (Monaco measures after a frame)
  await page.screenshot({ path: join(artifactsDir, `${name}.png`) })
}

describe('a first session on an outside program', () => {
  it('1280x720: readable code, the advisor finds the column walk, honest queries, the what-if ends on Compare', async () => {
    const page = await web.browser.newPage({ viewport: { width: 1280, height: 720 } })
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
    await page.goto(web.server.url)

    // Launch: Browse… shows the examples (web mode's browser), then the user types their own path.
    await page.getByTestId('launch-button').click()
    await page.getByTestId('source-custom').check()
    await page.getByTestId('browse-program').click()
    await page.getByTestId('browse-root-examples').click()
    await expect.poll(() => page.getByTestId('browse-list').textContent()).toMatch(/build\//)
    await page.locator('[data-testid="browse-entry"][data-name="build"]').click()
    await page.locator('[data-testid="browse-entry"][data-name="conflict"]').click()
    expect(await page.getByTestId('program-path').inputValue()).toMatch(/examples\/build\/conflict$/)
    await page.getByTestId('program-path').fill(program)
    await page.getByTestId('function-sum_list').check({ timeout: 30_000 })
    await page.getByTestId('function-matmul').check()
    await page.getByTestId('start-trace').click()
    await page.getByTestId('workspace-tabs').waitFor({ timeout: 240_000 })

    // The code comes first and keeps 100+ columns at 1280 pixels; the table is below it.
    await page.locator('[data-testid="source-view"] .view-lines').waitFor({ timeout: 60_000 })
    await page.getByTestId('file-select').selectOption({ label: 'listmult.c' }).catch(() => undefined)
    expect(await visibleColumns(page)).toBeGreaterThanOrEqual(100)
    expect(await page.getByTestId('source-split').getAttribute('class')).toMatch(/stacked/)
    await page.getByTestId('references-table').waitFor()
    await shoot(page, 'journey-1280-source')

    // The advisor's first card is the reference holding most misses: b[k][j]'s column walk.
    await page.getByTestId('tab-advisor').click()
    const first = page.getByTestId('advice-item').first()
    await first.waitFor({ timeout: 120_000 })
    expect(await first.locator('.advice-title').textContent()).toMatch(/^Column walk: b_Read_\d+@\S+\+0x[0-9a-f]+ \(b\[k\]\[j\]\)$/)
    await shoot(page, 'journey-1280-advisor')

    await page.getByTestId('tab-evictors').click()
    await page.waitForTimeout(1500)
    await shoot(page, 'journey-1280-evictors')

    // A misspelled query is an error naming it, with no chart drawn under it.
    await page.getByTestId('tab-query').click()
    await page.getByTestId('query-input').fill('[{b},{matmull},{misses}]')
    await page.getByTestId('query-input').press('Enter')
    await expect.poll(() => page.getByTestId('query-error').textContent(), { timeout: 60_000 }).toMatch(/no traced function "matmull"; did you mean matmul\?/)
    expect(await page.getByTestId('query-output').count()).toBe(0)
    await shoot(page, 'journey-1280-query-error')

    await page.getByTestId('tab-objects').click()
    await page.waitForTimeout(1000)
    await shoot(page, 'journey-1280-objects')

    // One click on the advisor's suggestion: the what-if runs and ends on Compare, before/after.
    await page.getByTestId('tab-advisor').click()
    await page.getByTestId('advice-action').first().click()
    await expect.poll(() => page.getByTestId('tab-compare').getAttribute('aria-selected'), { timeout: 180_000 }).toBe('true')
    const total = page.getByTestId('diff-total').first()
    await total.waitFor({ timeout: 30_000 })
    expect(await total.locator('.diff-total-value').textContent()).toMatch(/^[\d,]+ → [\d,]+$/)
    await shoot(page, 'journey-1280-compare')

    await page.getByTestId('tab-whatif').click()
    await shoot(page, 'journey-1280-whatif')

    await page.getByTestId('attach-button').click()
    await page.getByTestId('attach-dialog').waitFor()
    await shoot(page, 'journey-1280-attach')
    await page.keyboard.press('Escape')

    // The same views at 1920x1080: code and table side by side.
    await page.setViewportSize({ width: 1920, height: 1080 })
    await page.getByTestId('tab-source').click()
    await page.locator('[data-testid="source-view"] .view-lines').waitFor()
    await expect.poll(() => page.getByTestId('source-split').getAttribute('class')).toMatch(/side/)
    expect(await visibleColumns(page)).toBeGreaterThanOrEqual(100)
    await shoot(page, 'journey-1920-source')
    for (const tab of ['advisor', 'evictors', 'query', 'objects', 'whatif', 'compare']) {
      await page.getByTestId(`tab-${tab}`).click()
      await page.waitForTimeout(tab === 'evictors' ? 1500 : 500)
      await shoot(page, `journey-1920-${tab}`)
    }
    expect(problems).toEqual([])
    await page.close()
  })
})
