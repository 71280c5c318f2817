/** Launch a bundled example from the UI (as a first-time user does) and wait for its first run. */
import type { Page } from 'playwright-core'

/** `wholeProgram`: the example's functions cleared first, so every access of the program is traced. */
export async function launchExample(page: Page, url: string, name: string, { wholeProgram = false }: { wholeProgram?: boolean } = {}): Promise<void> {
  await page.goto(url)
  await page.getByTestId('launch-button').click()
  const dialog = page.getByTestId('launch-dialog')
  await dialog.waitFor()
  await page.getByTestId('example-' + name).click()
  // The example's functions are pre-checked once its symbols are read.
  const boxes = page.locator('[data-testid^="function-"][type="checkbox"]')
  await boxes.first().waitFor({ timeout: 30_000 })
  if (wholeProgram) {
    await page.getByRole('button', { name: 'Clear', exact: true }).click()
    // In-page code as a string: e2e code is typechecked without DOM types.
    await page.waitForFunction(`![...document.querySelectorAll('[data-testid^="function-"][type="checkbox"]')].some((b) => b.checked)`)
  }
  await page.getByTestId('start-trace').click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByTestId('workspace-tabs').waitFor({ timeout: 240_000 })
  const failed = page.getByTestId('job-failed')
  if (await failed.isVisible()) throw new Error(`trace failed: ${await failed.textContent()}`)
}
