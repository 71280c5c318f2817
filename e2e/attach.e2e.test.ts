/**
 * Attach in web mode: a long-running example (spin) appears in the live process list, the
 * filter finds it by PID, its functions load (sumfunc among the likely hot ones), and Start
 * says clearly how to install Frida where it is not installed. Where Frida is installed the
 * last step is skipped with that reason (the CLI integration test traces for real there).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { fridaImportable } from '../src/main/tracing/frida/testing/frida-importable'
import { launchChromium, newPage, screenshot } from './support/browser'
import { repoRoot, startWebServer, type WebServer } from './support/serve'

let server: WebServer
let browser: Browser
let spin: ChildProcess

beforeAll(async () => {
  spin = spawn(join(repoRoot, 'resources', 'examples', 'build', 'spin'), [], { stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise<void>((resolve) => spin.stdout!.once('data', () => resolve()))
  server = await startWebServer()
  browser = await launchChromium()
})

afterAll(async () => {
  spin?.kill('SIGKILL')
  await browser?.close()
  await server?.stop()
})

describe('Attach dialog', () => {
  it('finds a running process by PID, lists its functions, and Start explains how to install Frida', async (ctx) => {
    const { page, problems } = await newPage(browser)
    await page.goto(server.url)
    await page.getByTestId('attach-button').click()
    await page.getByTestId('attach-dialog').waitFor()

    // The live list holds the spin process; filtering by its PID leaves just it.
    const row = page.getByTestId(`process-${spin.pid}`)
    await row.waitFor({ timeout: 30_000 })
    await page.getByTestId('process-filter').fill(String(spin.pid))
    await expect.poll(() => page.locator('[data-testid^="process-"][role="option"]').count()).toBe(1)
    expect(await row.textContent()).toMatch(/spin/)
    await row.click()
    expect(await row.getAttribute('aria-selected')).toBe('true')

    // Its modules and functions: the executable first, sumfunc searchable and suggested.
    const sumfunc = page.getByTestId('function-sumfunc')
    await sumfunc.waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('module-select').inputValue()).toMatch(/\/spin$/)
    expect(await page.getByTestId('suggested-functions').textContent()).toMatch(/sumfunc/)
    await page.getByTestId('function-filter').fill('sumf')
    expect(await page.locator('[data-testid^="function-"][type="checkbox"]').count()).toBe(1)
    await sumfunc.check()
    await page.getByTestId('sampling-mode').getByText('Max samples').click()
    await page.getByTestId('sampling-samples').fill('20')
    await screenshot(page, 'attach-1-process-and-functions')

    // The list keeps refreshing while the dialog is open, without losing the selection.
    await page.waitForTimeout(2500)
    expect(await row.getAttribute('aria-selected')).toBe('true')

    if (fridaImportable()) ctx.skip('frida is installed here: Start would trace for real (see frida-attach.integration.test.ts)')
    await page.getByTestId('start-attach').click()
    const error = page.getByTestId('attach-error')
    await error.waitFor({ timeout: 30_000 })
    expect(await error.textContent()).toMatch(/^Frida is not installed: install it with "npm install frida"/)
    await screenshot(page, 'attach-2-frida-missing')
    // Nothing started: no job banner, the dialog stays open for another try.
    expect(await page.getByTestId('job-running').count()).toBe(0)
    expect(await page.getByTestId('attach-dialog').isVisible()).toBe(true)
    expect(problems).toEqual([])
  })

  it('launches a program under Frida from the same dialog (spawn): functions listed, Start explains how to install Frida', async (ctx) => {
    const { page, problems } = await newPage(browser)
    await page.goto(server.url)
    await page.getByTestId('attach-button').click()
    await page.getByTestId('attach-mode').getByText('Launch under Frida').click()
    await page.getByTestId('spawn-program').fill(join(repoRoot, 'resources', 'examples', 'build', 'spin'))
    await page.getByTestId('spawn-args').fill('100')
    const sumfunc = page.getByTestId('function-sumfunc')
    await sumfunc.waitFor({ timeout: 30_000 })
    await sumfunc.check()
    if (fridaImportable()) ctx.skip('frida is installed here: Start would trace for real')
    await page.getByTestId('start-attach').click()
    const error = page.getByTestId('attach-error')
    await error.waitFor({ timeout: 30_000 })
    expect(await error.textContent()).toMatch(/^Frida is not installed: install it with "npm install frida"/)
    await screenshot(page, 'attach-3-spawn-frida-missing')
    expect(problems).toEqual([])
  })
})
