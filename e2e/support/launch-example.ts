/** Launch a bundled example from the UI (as a first-time user does) and wait for its first run. */
import type { Page } from 'playwright-core'

export async function launchExample(page: Page, url: string, name: string): Promise<void> {
  await page.goto(url)
  await page.getByTestId('launch-button').click()
  const dialog = page.getByTestId('launch-dialog')
  await dialog.waitFor()
  await page.getByTestId('example-' + name).click()
  // The example's functions are pre-checked once its symbols are read.
  await page.locator('[data-testid^="function-"][type="checkbox"]').first().waitFor({ timeout: 30_000 })
  await page.getByTestId('start-trace').click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByTestId('workspace-tabs').waitFor({ timeout: 240_000 })
  const failed = page.getByTestId('job-failed')
  if (await failed.isVisible()) throw new Error(`trace failed: ${await failed.textContent()}`)
}
