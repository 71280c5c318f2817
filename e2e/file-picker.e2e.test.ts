/**
 * Issue 47 (b): web mode's file picker leaves $HOME and takes a typed path. A path typed
 * anywhere the user can read is checked by the server: a program is chosen at once, a folder
 * is gone into, anything else is refused in one line. Screenshots at 1280x720 in e2e/artifacts.
 */
import { chmodSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

const web = useWebMode()

describe('the web-mode file picker', () => {
  it('chooses a typed program outside $HOME, goes into a typed folder outside it, and refuses a bad path in one line', async () => {
    // A folder outside the home folder, with a program in it.
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'stride-e2e-picker-')))
    expect(outside.startsWith(realpathSync(homedir()) + '/')).toBe(false)
    writeFileSync(join(outside, 'tool'), '#!/bin/sh\necho hi\n')
    chmodSync(join(outside, 'tool'), 0o755)
    writeFileSync(join(outside, 'notes.txt'), 'not a program')

    const { page, problems } = await newPage(web.browser)
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('source-custom').click()
    const browse = async () => {
      await page.getByTestId('browse-program').click()
      await page.getByTestId('file-browser').waitFor()
      // The first place (home) is listed: its path fills the field.
      await expect.poll(() => page.getByTestId('browse-path-input').inputValue()).not.toBe('')
    }

    // A typed program anywhere the user can run it: chosen, the dialog closes.
    await browse()
    const field = page.getByTestId('browse-path-input')
    await field.fill('/usr/bin/true')
    await field.press('Enter')
    await page.getByTestId('file-browser').waitFor({ state: 'detached' })
    expect(await page.getByTestId('program-path').inputValue()).toBe(realpathSync('/usr/bin/true'))

    // A typed folder outside $HOME: gone into, its program listed and picked.
    await browse()
    await field.fill(outside)
    await page.getByTestId('browse-path-go').click()
    await page.locator('[data-testid="browse-entry"][data-name="tool"]').waitFor()
    expect(await page.getByTestId('browse-entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['tool'])
    // Up leads further out, to the folder above (no longer refused).
    await page.getByTestId('browse-up').click()
    await page.locator(`[data-testid="browse-entry"][data-name="${outside.split('/').pop()}"]`).waitFor()
    await page.locator(`[data-testid="browse-entry"][data-name="${outside.split('/').pop()}"]`).click()
    // Back in the folder (its listing, and the field's path, arrive after the click): a path
    // typed before that could be overwritten or joined to the folder's.
    await page.locator('[data-testid="browse-entry"][data-name="tool"]').waitFor()
    await expect.poll(() => field.inputValue()).toMatch(new RegExp(`^${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`))
    // Not a program: refused in one clear line, the dialog stays.
    await field.fill(join(outside, 'notes.txt'))
    await field.press('Enter')
    const error = page.getByTestId('browse-error')
    await error.waitFor()
    expect(await error.textContent()).toBe(`${join(outside, 'notes.txt')} is not executable (chmod +x it, or pick a program).`)
    await screenshot(page, 'file-picker-outside-home-1280x720')
    await field.fill(join(outside, 'missing'))
    await field.press('Enter')
    await expect.poll(() => error.textContent()).toBe(`${join(outside, 'missing')} does not exist; check the path.`)
    await page.locator('[data-testid="browse-entry"][data-name="tool"]').click()
    await page.getByTestId('file-browser').waitFor({ state: 'detached' })
    expect(await page.getByTestId('program-path').inputValue()).toBe(join(outside, 'tool'))

    // The places: the file system's root is one of them.
    await browse()
    await page.getByTestId('browse-root-computer').click()
    await page.locator('[data-testid="browse-entry"][data-name="usr"]').waitFor()
    await screenshot(page, 'file-picker-root-1280x720')
    expect(problems).toEqual([])
    await page.close()
  })
})
