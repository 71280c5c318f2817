/**
 * The evictor graph at scale in web mode (issue 48): a whole-program trace of the bundled
 * conflict example (no function chosen: ld.so and libc too) has far more evicting references
 * than a picture can hold. A person sees at most 12 nodes at first (data structures), the top
 * 12 references by misses with the toggle, labels at reading size that do not overlap at
 * 1280x720, more with "Show more" and all with "Show all", and the same picture after a
 * reload and reopen. Screenshots at 1280x720 and 1920x1080 in both themes.
 */
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { newPage, screenshot } from './support/browser'
import { launchExample } from './support/launch-example'
import { useWebMode } from './support/web-mode'

const web = useWebMode()

type Boxes = Record<string, [number, number, number, number]>

async function settled(page: Page): Promise<void> {
  const canvas = page.getByTestId('evictor-canvas')
  await canvas.waitFor({ timeout: 30_000 })
  await expect.poll(() => canvas.getAttribute('data-layout-state'), { timeout: 30_000 }).toBe('done')
  // The attributes follow the layout and the fit; give a frame for the last viewport event.
  await page.waitForTimeout(100)
}

const attr = async (page: Page, name: string) => (await page.getByTestId('evictor-canvas').getAttribute(name))!
const nodeCount = async (page: Page) => Number(await attr(page, 'data-node-count'))

/** Labels drawn at 11 px or more, none overlapping another, all inside the canvas. */
async function expectLegibleLabels(page: Page): Promise<void> {
  const zoom = Number(await attr(page, 'data-zoom'))
  const boxes = JSON.parse(await attr(page, 'data-label-boxes')) as Boxes
  const ids = Object.keys(boxes)
  expect(ids.length).toBeGreaterThan(0)
  // 13 px labels: the fit never shrinks them under 11 px.
  expect(13 * zoom).toBeGreaterThanOrEqual(11)
  const box = (await page.getByTestId('evictor-canvas').boundingBox())!
  for (const id of ids) {
    const [x1, y1, x2, y2] = boxes[id]!
    expect(y2 - y1, `${id} label height`).toBeGreaterThanOrEqual(11)
    expect(x1 >= -1 && y1 >= -1 && x2 <= box.width + 1 && y2 <= box.height + 1, `${id} label ${boxes[id]} inside ${box.width}x${box.height}`).toBe(true)
  }
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++) {
      const [a, b] = [boxes[ids[i]!]!, boxes[ids[j]!]!]
      const overlap = a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
      expect(overlap, `labels of ${ids[i]} ${a} and ${ids[j]} ${b} overlap`).toBe(false)
    }
}

/** Contrast ratio of the label colour on its background (WCAG), from the theme's tokens. */
async function labelContrast(page: Page): Promise<number> {
  return (await page.evaluate(`(() => {
    const css = getComputedStyle(document.documentElement)
    const probe = document.createElement('span')
    document.body.appendChild(probe)
    const rgb = (v) => { probe.style.color = v; return getComputedStyle(probe).color.match(/[\\d.]+/g).slice(0, 3).map(Number) }
    const lum = (c) => { const [r, g, b] = c.map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4) }); return 0.2126 * r + 0.7152 * g + 0.0722 * b }
    const a = lum(rgb(css.getPropertyValue('--text').trim())), b = lum(rgb(css.getPropertyValue('--surface').trim()))
    probe.remove()
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
  })()`)) as number
}

describe('evictor graph at scale', () => {
  it('shows the top 12 with legible labels, Show more adds nodes, and a reload draws the same picture', async () => {
    const { page, problems } = await newPage(web.browser)
    await page.setViewportSize({ width: 1280, height: 720 })
    // No function chosen: the whole program is traced.
    await launchExample(page, web.server.url, 'conflict', { wholeProgram: true })

    await page.getByTestId('tab-evictors').click()
    await settled(page)
    // By data structure at first: at most 12 nodes, the node list the same.
    const grouped = await nodeCount(page)
    console.log(`[evictors] whole-program conflict, data structures: ${await page.getByTestId('evictor-counts').textContent()}`)
    expect(grouped).toBeGreaterThan(0)
    expect(grouped).toBeLessThanOrEqual(12)
    expect(await page.getByTestId('evictor-node-button').count()).toBe(grouped)
    await screenshot(page, 'evictors-scale-1280-light-grouped')
    await expectLegibleLabels(page)

    // References: the top 12 of many.
    await page.getByTestId('evictor-mode').getByText('References').click()
    await settled(page)
    const counts = page.getByTestId('evictor-counts')
    const m = /^12 of (\d+) nodes/.exec((await counts.textContent())!)
    console.log(`[evictors] references: ${await counts.textContent()}`)
    expect(m).not.toBeNull()
    const total = Number(m![1])
    expect(total).toBeGreaterThan(12)
    expect(await nodeCount(page)).toBe(12)
    await screenshot(page, 'evictors-scale-1280-light')
    await expectLegibleLabels(page)
    expect(await labelContrast(page)).toBeGreaterThanOrEqual(4.5)
    const first = await attr(page, 'data-node-positions')
    expect(Object.keys(JSON.parse(first) as object)).toHaveLength(12)

    // A long label is cut with "…"; its full name is the canvas's tooltip on hover.
    const positions = JSON.parse(first) as Record<string, [number, number]>
    const longest = Object.keys(positions).sort((a, b) => b.length - a.length)[0]!
    const box = (await page.getByTestId('evictor-canvas').boundingBox())!
    await page.mouse.move(box.x + positions[longest]![0], box.y + positions[longest]![1])
    await expect.poll(() => page.getByTestId('evictor-canvas').getAttribute('title')).toBe(longest)
    await page.mouse.move(0, 0)

    // Show more: 12 more (or all); Show all: every node; back to the top 12: the same picture.
    await page.getByTestId('evictor-show-more').click()
    await settled(page)
    expect(await nodeCount(page)).toBe(Math.min(24, total))
    if (total > 24) {
      await page.getByTestId('evictor-show-all').click()
      await settled(page)
      expect(await nodeCount(page)).toBe(total)
    }
    await page.getByTestId('evictor-show-fewer').click()
    await settled(page)
    expect(await nodeCount(page)).toBe(12)

    // The node list reaches nodes by keyboard: Enter selects.
    const top = page.getByTestId('evictor-node-button').first()
    const topId = (await top.getAttribute('data-node'))!
    await top.focus()
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await page.getByTestId('evictor-node').textContent())!.startsWith(topId)).toBe(true)

    // Reload and reopen the session: the same twelve in the same places.
    await page.reload()
    const recent = page.getByTestId('recent-session').first()
    await recent.waitFor({ timeout: 30_000 })
    await recent.click()
    await page.getByTestId('tab-evictors').click({ timeout: 60_000 })
    await settled(page)
    await page.getByTestId('evictor-mode').getByText('References').click()
    await settled(page)
    expect(JSON.parse(await attr(page, 'data-node-positions'))).toEqual(JSON.parse(first))
    // And a second render in the same page (by data structure and back): the same again.
    await page.getByTestId('evictor-mode').getByText('Data structures').click()
    await settled(page)
    await page.getByTestId('evictor-mode').getByText('References').click()
    await settled(page)
    expect(JSON.parse(await attr(page, 'data-node-positions'))).toEqual(JSON.parse(first))

    // Dark theme: the same legibility.
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForTimeout(200)
    await expectLegibleLabels(page)
    expect(await labelContrast(page)).toBeGreaterThanOrEqual(4.5)
    await screenshot(page, 'evictors-scale-1280-dark')

    // 1920x1080, both themes (Fit re-fits to the larger pane).
    await page.setViewportSize({ width: 1920, height: 1080 })
    await page.getByRole('button', { name: 'Fit', exact: true }).click()
    await page.waitForTimeout(200)
    await expectLegibleLabels(page)
    await screenshot(page, 'evictors-scale-1920-dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await page.waitForTimeout(200)
    await screenshot(page, 'evictors-scale-1920-light')
    // Data structures at 1920 for a look.
    await page.getByTestId('evictor-mode').getByText('Data structures').click()
    await settled(page)
    await screenshot(page, 'evictors-scale-1920-light-grouped')

    // Expand data structure A into its references (selected from the node list by keyboard), then group it again.
    const ids = () => page.locator('[data-testid="evictor-node-button"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')!))
    await page.locator('[data-testid="evictor-node-button"][data-node="A"]').focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('evictor-expand').click()
    await settled(page)
    await expect.poll(ids).not.toContain('A')
    const refsOfA = (await ids()).filter((id) => id.startsWith('A_'))
    expect(refsOfA.length).toBeGreaterThan(0)
    expect((await ids()).length).toBeLessThanOrEqual(12)
    await screenshot(page, 'evictors-scale-1920-light-expanded')
    await page.locator(`[data-testid="evictor-node-button"][data-node="${refsOfA[0]}"]`).focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('evictor-collapse').click()
    await settled(page)
    await expect.poll(ids).toContain('A')

    expect(problems).toEqual([])
    await page.close()
  })
})
