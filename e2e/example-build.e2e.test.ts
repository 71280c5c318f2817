/**
 * Issue 47 (c): an example card whose program is not built yet is not disabled without a
 * reason. Where a C compiler is found, the card says picking it builds it, and picking it does
 * (the backend's first-use build); where none is, the card is disabled and says why, with the
 * fix, in one line. Each server gets a copy of the examples without their build/ folder
 * (STRIDE_EXAMPLES). Screenshots at 1280x720 in e2e/artifacts.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { newPage, screenshot } from './support/browser'
import { repoRoot, startWebServer, type WebServer } from './support/serve'
import { useWebMode } from './support/web-mode'

/** The examples' sources and catalog, no build/ folder. */
function unbuiltExamples(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stride-e2e-examples-'))
  const from = join(repoRoot, 'resources', 'examples')
  for (const f of readdirSync(from)) if (f.endsWith('.c') || f === 'examples.json') copyFileSync(join(from, f), join(dir, f))
  return dir
}

const buildable = unbuiltExamples()
const web = useWebMode(undefined, undefined, () => ({ STRIDE_EXAMPLES: buildable }))

async function openLaunch(page: Page, url: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 720 })
  await page.goto(url)
  await page.getByTestId('launch-button').click()
  await page.getByTestId('launch-dialog').waitFor()
  await page.getByTestId('source-example').click()
}

describe('example cards not built yet', () => {
  let noCompiler: WebServer | undefined
  afterAll(async () => {
    await noCompiler?.stop()
  })

  it('offers to build one on first use, and picking it builds it', async () => {
    expect(existsSync(join(buildable, 'build'))).toBe(false)
    const { page, problems } = await newPage(web.browser)
    await openLaunch(page, web.server.url)
    const card = page.getByTestId('example-conflict')
    const note = page.getByTestId('example-note-conflict')
    await note.waitFor()
    expect(await note.textContent()).toBe('Not built yet: picking it builds it (cc -g -O1).')
    expect(await card.locator('input[type="radio"]').isDisabled()).toBe(false)
    await screenshot(page, 'examples-unbuilt-1280x720')
    await card.click()
    // Reading its symbols built it: its functions are listed, and its card no longer has a note.
    await page.getByTestId('function-sumfunc').waitFor({ timeout: 60_000 })
    expect(existsSync(join(buildable, 'build', 'conflict'))).toBe(true)
    await note.waitFor({ state: 'detached' })
    expect(await page.getByTestId('example-note-mult').textContent()).toBe('Not built yet: picking it builds it (cc -g -O1).')
    expect(problems).toEqual([])
    await page.close()
  })

  it('says why it cannot be built where no C compiler is found, in one line', async () => {
    // No cc on PATH, no CC: the server still runs (Node is started by its path).
    const emptyBin = mkdtempSync(join(tmpdir(), 'stride-e2e-nobin-'))
    mkdirSync(join(emptyBin, 'bin'))
    noCompiler = await startWebServer(60_000, { STRIDE_EXAMPLES: unbuiltExamples(), PATH: join(emptyBin, 'bin'), CC: undefined })
    const { page, problems } = await newPage(web.browser)
    await openLaunch(page, noCompiler.url)
    const note = page.getByTestId('example-note-conflict')
    await note.waitFor()
    expect(await note.textContent()).toBe('Cannot be built here: needs cc (apt-get install gcc).')
    expect(await page.getByTestId('example-conflict').locator('input[type="radio"]').isDisabled()).toBe(true)
    await screenshot(page, 'examples-no-compiler-1280x720')
    // The welcome screen's cards say the same.
    await page.getByTestId('launch-dialog').getByRole('button', { name: 'Close', exact: true }).last().click()
    expect(await page.getByTestId('welcome-example-note-conflict').textContent()).toBe('Cannot be built here: needs cc (apt-get install gcc).')
    expect(await page.getByTestId('welcome-example-conflict').isDisabled()).toBe(true)
    expect(problems).toEqual([])
    await page.close()
  })
})
