/**
 * Attach in web mode: a long-running example (spin) appears in the live process list (all
 * rows), the filter finds it by PID and the keyboard selects it, its functions load
 * (sumfunc among the likely hot ones). Where `frida` is importable, Start traces for real
 * (attach, and spawn) and the partial session opens; where it is not, the dialog says so as
 * it opens and Start gives the install hint. Both paths are exercised, one per machine.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { processAlive } from '../src/main/tracing/frida/frida-tracer'
import { killDetached, startDetached } from '../src/main/tracing/frida/testing/detached-target'
import { fridaImportable } from '../src/main/tracing/frida/testing/frida-importable'
import { launchChromium, newPage, screenshot } from './support/browser'
import { repoRoot, startWebServer, type WebServer } from './support/serve'

let server: WebServer
let browser: Browser
let spin: { pid: number }
const FRIDA = fridaImportable()

beforeAll(async () => {
  // Outside Node's child tracking, so a real Frida can attach to it.
  spin = { pid: await startDetached(join(repoRoot, 'resources', 'examples', 'build', 'spin')) }
  server = await startWebServer()
  browser = await launchChromium()
})

afterAll(async () => {
  killDetached()
  await browser?.close()
  await server?.stop()
})

describe('Attach dialog', () => {
  it('finds a running process by PID, lists its functions; Start traces it with Frida, or says how to install Frida', async () => {
    const { page, problems } = await newPage(browser)
    await page.goto(server.url)
    await page.getByTestId('attach-button').click()
    await page.getByTestId('attach-dialog').waitFor()
    // Whether Frida can trace is said as the dialog opens, not only after Start.
    const missing = page.getByTestId('frida-missing')
    if (FRIDA) {
      await page.getByTestId('process-count').filter({ hasText: 'from Frida' }).waitFor({ timeout: 30_000 })
      expect(await missing.count()).toBe(0)
    } else {
      await missing.waitFor({ timeout: 30_000 })
      expect(await missing.textContent()).toMatch(/Frida is not installed: install it with "npm install frida"/)
    }

    // The live list holds the spin process; filtering by its PID leaves just it.
    const row = page.getByTestId(`process-${spin.pid}`)
    await row.waitFor({ timeout: 30_000 })
    // Every process is listed (the count says all of them are shown).
    expect(await page.getByTestId('process-count').textContent()).toMatch(/^(\d+) of \1\b/)
    await page.getByTestId('process-filter').fill(String(spin.pid))
    await expect.poll(() => page.locator('[data-testid^="process-"][role="option"]').count()).toBe(1)
    expect(await row.textContent()).toMatch(/spin/)
    // The keyboard picks it from the filter box.
    await page.getByTestId('process-filter').press('ArrowDown')
    await expect.poll(() => row.getAttribute('aria-selected')).toBe('true')

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

    if (FRIDA) {
      // A real trace from the dialog: 50,000 events of sumfunc, then detach; the partial
      // session opens and the process keeps running.
      await page.getByTestId('sampling-mode').getByText('Complete').click()
      await page.getByTestId('attach-max-events').fill('50000')
      await page.getByTestId('start-attach').click()
      await page.getByTestId('partial-badge').waitFor({ timeout: 120_000 })
      await screenshot(page, 'attach-2-traced-with-frida')
      expect(processAlive(spin.pid)).toBe(true)
      expect(problems).toEqual([])
      return
    }
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

  it('launches a program under Frida from the same dialog (spawn): functions listed; Start traces it, or says how to install Frida', async () => {
    const { page, problems } = await newPage(browser)
    await page.goto(server.url)
    await page.getByTestId('attach-button').click()
    await page.getByTestId('attach-mode').getByText('Launch under Frida').click()
    await page.getByTestId('spawn-program').fill(join(repoRoot, 'resources', 'examples', 'build', 'spin'))
    await page.getByTestId('spawn-args').fill('100')
    const sumfunc = page.getByTestId('function-sumfunc')
    await sumfunc.waitFor({ timeout: 30_000 })
    await sumfunc.check()
    if (FRIDA) {
      // Spawned suspended, instrumented, resumed: spin 100 ends mid-trace; what it did is kept.
      await page.getByTestId('start-attach').click()
      await page.getByTestId('partial-badge').waitFor({ timeout: 120_000 })
      await screenshot(page, 'attach-3-spawn-traced-with-frida')
      expect(problems).toEqual([])
      return
    }
    await page.getByTestId('start-attach').click()
    const error = page.getByTestId('attach-error')
    await error.waitFor({ timeout: 30_000 })
    expect(await error.textContent()).toMatch(/^Frida is not installed: install it with "npm install frida"/)
    await screenshot(page, 'attach-3-spawn-frida-missing')
    expect(problems).toEqual([])
  })
})
