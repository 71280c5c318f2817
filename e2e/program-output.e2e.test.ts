/**
 * Issue 47 (a): the program Stride launches writes to its stdout and stderr; the app shows it.
 * While it runs, the job banner's "Program output" panel follows it (spin prints its pid and
 * runs on); once the trace ends, the session view shows the output of the trace just run
 * (conflict prints its sum). Screenshots at 1280x720 go to e2e/artifacts.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { newPage, screenshot } from './support/browser'
import { launchExample } from './support/launch-example'
import { repoRoot } from './support/serve'
import { useWebMode } from './support/web-mode'

const web = useWebMode()

describe('the traced program\'s output (web mode)', () => {
  it('shows what a bundled example printed in the session view of its trace', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.setViewportSize({ width: 1280, height: 720 })
    await launchExample(page, web.server.url, 'conflict')
    const panel = page.getByTestId('session-program-output')
    await panel.waitFor({ timeout: 30_000 })
    // conflict.c: printf("sum = %.1f\n", result)
    expect(await page.getByTestId('program-output-text').textContent()).toMatch(/^sum = \d+\.\d\n$/)
    expect(await panel.locator('summary').textContent()).toContain('1 line')
    // Stride's own lines are not in it, and its output is not in Stride's log.
    expect(await page.getByTestId('program-output-text').textContent()).not.toMatch(/stride|valgrind|==\d+==/i)
    await screenshot(page, 'program-output-session-1280x720')
    expect(problems).toEqual([])
    await page.close()
  })

  it('follows the output live in the running job\'s banner', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('source-custom').click()
    // spin prints "spin: pid N", then runs until stopped.
    await page.getByTestId('program-path').fill(join(repoRoot, 'resources', 'examples', 'build', 'spin'))
    await page.getByTestId('function-sumfunc').waitFor({ timeout: 30_000 })
    const box = page.getByTestId('function-sumfunc')
    if (!(await box.isChecked())) await box.check()
    await page.getByTestId('start-trace').click()
    const banner = page.getByTestId('job-running')
    await banner.waitFor({ timeout: 30_000 })
    const panel = banner.getByTestId('program-output')
    await panel.locator('summary').click()
    await expect.poll(async () => (await banner.getByTestId('program-output-text').count()) > 0 && (await banner.getByTestId('program-output-text').textContent()), { timeout: 60_000 }).toMatch(/^spin: pid \d+\n/)
    await screenshot(page, 'program-output-banner-1280x720')
    await page.getByTestId('cancel-job').click()
    await page.getByTestId('workspace-tabs').waitFor({ timeout: 240_000 })
    // The session of the cancelled trace keeps what the program wrote.
    expect(await page.getByTestId('session-program-output').getByTestId('program-output-text').textContent()).toMatch(/^spin: pid \d+\n/)
    expect(problems).toEqual([])
    await page.close()
  })
})
