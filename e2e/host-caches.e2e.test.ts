/**
 * The Launch dialog's cache form starts from this machine's caches as Cachegrind simulates
 * them (the D1 and LL `stride hierarchy` prints), says so in one line, and can go back to them
 * after an edit.
 */
import { describe, expect, it } from 'vitest'
import { formatSize } from '../src/shared/sizes'
import { fixedEnv, strideOk, tempDir } from '../src/main/testing/cli-runner'
import { newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'

interface HierarchyJson {
  levels: Array<{ name: string; size: number; assoc: number; lineSize: number }>
  summary: string
  note: string
  source: string
  asCachegrind: boolean
}

const host = JSON.parse(strideOk(['hierarchy', '--json'], fixedEnv(tempDir('e2e-host-caches')))) as HierarchyJson
const web = useWebMode()

describe('the Launch dialog', () => {
  it("shows the host's D1 and LL by default, editable, with a line saying whose they are", async () => {
    const { page, problems } = await newPage(web.browser)
    await page.goto(web.server.url)
    await page.getByTestId('launch-button').click()
    const dialog = page.getByTestId('launch-dialog')
    await dialog.waitFor()
    await page.getByTestId('source-custom').click()

    const line = page.getByTestId('host-caches')
    await line.waitFor()
    const expectedLine = host.source === 'defaults' || !host.asCachegrind ? host.note : `Host: ${host.summary} (as Cachegrind).`
    expect((await line.textContent())?.replace(/\s*Use these$/, '')).toBe(expectedLine)

    const form = async () =>
      Promise.all(
        host.levels.map(async (_, i) => [
          await dialog.getByLabel(`Level ${i + 1} name`).inputValue(),
          await page.getByTestId(`cache-size-${i}`).inputValue(),
          await page.getByTestId(`cache-assoc-${i}`).inputValue(),
          await page.getByTestId(`cache-line-${i}`).inputValue()
        ])
      )
    const expected = host.levels.map((l) => [l.name, formatSize(l.size), String(l.assoc), String(l.lineSize)])
    expect(expected.map((l) => l[0])).toEqual(['D1', 'LL'])
    expect(await form()).toEqual(expected)
    await screenshot(page, 'host-caches-1-launch-dialog')

    // Editable; "Use these" puts the host's back.
    await page.getByTestId('cache-size-0').fill('64K')
    expect(await page.getByTestId('cache-size-0').inputValue()).toBe('64K')
    await page.getByTestId('use-host-caches').click()
    expect(await form()).toEqual(expected)
    expect(problems).toEqual([])
  })
})
