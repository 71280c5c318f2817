/**
 * Recording from the launch dialog on Stride's Valgrind tool, as a person sees it: with a
 * function chosen the dialog offers to record what it calls; an event limit records that many
 * and lets the program finish (the summary says so, and how the program ended); "stop the
 * program at the limit" kills it there. Screenshots go to e2e/artifacts (looked at).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, tempDir } from '../src/main/testing/cli-runner'
import { artifactsDir } from './support/browser'
import { useWebMode } from './support/web-mode'

const dir = tempDir('e2e-recording')
const program = join(dir, 'close-all')

const web = useWebMode(() => {
  // Exits 0 after writing a global array; built as users build (-O2, PIE).
  const src = join(ROOT, 'src', 'main', 'tracing', 'valgrind', 'fixtures', 'close-all.c')
  const cc = spawnSync('cc', ['-g', '-O0', '-fPIE', '-pie', '-o', program, src], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(cc.stderr)
})

async function launch(page: Page, options: { maxEvents: string; stopAtLimit: boolean; shot?: string }): Promise<void> {
  await page.goto(web.server.url)
  await page.getByTestId('launch-button').click()
  await page.getByTestId('source-custom').check()
  await page.getByTestId('program-path').fill(program)
  await page.getByTestId('function-main').check({ timeout: 30_000 })
  // A chosen function brings the option to follow its calls.
  await expect.poll(() => page.getByTestId('follow-calls').isVisible()).toBe(true)
  await page.getByTestId('max-events').fill(options.maxEvents)
  if (options.stopAtLimit) await page.getByTestId('stop-at-limit').check()
  if (options.shot) await page.screenshot({ path: join(artifactsDir, `${options.shot}.png`) })
  await page.getByTestId('start-trace').click()
  await page.getByTestId('workspace-tabs').waitFor({ timeout: 240_000 })
}

describe('recording from the launch dialog', () => {
  it('an event limit records that many, and the program runs on to its end (or is stopped)', async () => {
    const page = await web.browser.newPage({ viewport: { width: 1280, height: 800 } })
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))

    await launch(page, { maxEvents: '500', stopAtLimit: false, shot: 'recording-1-dialog' })
    const note = page.getByTestId('partial-note')
    await expect.poll(() => note.textContent()).toMatch(/recording stopped after 500 events; the program ran on uninstrumented to its end/)
    expect(await page.getByTestId('session-events').textContent()).toBe('500')
    expect(await page.getByTestId('program-exit').textContent()).toBe('exit status 0')
    await page.screenshot({ path: join(artifactsDir, 'recording-2-detached.png') })

    await launch(page, { maxEvents: '500', stopAtLimit: true })
    await expect.poll(() => page.getByTestId('program-exit').textContent()).toBe('killed by SIGKILL')
    expect(await page.getByTestId('partial-note').textContent()).toMatch(/stopped after 500 events/)
    await page.screenshot({ path: join(artifactsDir, 'recording-3-stopped.png') })
    expect(problems).toEqual([])
  })
})
