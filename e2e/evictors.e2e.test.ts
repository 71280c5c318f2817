/**
 * The evictor graph in web mode on the bundled conflict example (METRIC 10.3, Figure 16):
 * a person sees one cycle A ↔ B ↔ C of line 30's reads (A_Read_30@sumfunc+0x14 and so on: METRIC's
 * A_Read_0 ↔ B_Read_1 ↔ C_Read_2) with its three nodes highlighted,
 * clicks a node to see its evictors and jump to its line, reaches the same by keyboard, and
 * exports the edges (CSV) and the picture (PNG and SVG).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { artifactsDir, newPage, screenshot } from './support/browser'
import { useWebMode } from './support/web-mode'
import { launchExample } from './support/launch-example'

const web = useWebMode()

/** A cycle's label lists its members by misses (most first): these three, in whatever order. */
const cycleOf = (label: string | null, members: string[]): boolean => {
  const names = (label ?? '').split(/\d+ nodes/)[0]!.split(' ↔ ').map((n) => n.trim())
  return names.length === members.length && [...names].sort().join() === [...members].sort().join()
}

describe('evictor graph', () => {
  it('shows the conflict example’s 3-cycle, selects a clicked node’s line, exports CSV and PNG', async () => {
    const { page, problems } = await newPage(web.browser)
    await launchExample(page, web.server.url, 'conflict')
    // A function's trace: its first run says it was warmed by the whole program.
    await expect.poll(() => page.getByTestId('run-context').first().textContent()).toBe('warmed by the whole program')
    await page.getByTestId('tab-evictors').click()
    const canvas = page.getByTestId('evictor-canvas')
    await expect.poll(() => canvas.getAttribute('data-layout-state'), { timeout: 30_000 }).toBe('done')
    // Grouped by data structure at first (A, B, C); the references on demand.
    await expect.poll(async () => cycleOf(await page.getByTestId('evictor-cycle').first().locator('.evictor-cycle-label').textContent(), ['A', 'B', 'C'])).toBe(true)
    await page.getByTestId('evictor-mode').getByText('References').click()
    await expect.poll(() => canvas.getAttribute('data-layout-state')).toBe('done')
    console.log(`[timing] evictor graph layout, ${await canvas.getAttribute('data-node-count')} nodes: ${await canvas.getAttribute('data-layout-ms')} ms`)

    // The three reads of line 30, named by data structure, line and place in sumfunc (the
    // offsets are the compiler's: read off the page).
    const nodeIds = async () => (await page.locator('[data-testid="evictor-node-button"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')!))).sort()
    const [A, B, C] = await nodeIds()
    for (const [id, v] of [[A, 'A'], [B, 'B'], [C, 'C']] as const) expect(id).toMatch(new RegExp(`^${v}_Read_30@sumfunc\\+0x[0-9a-f]+$`))

    // One cycle, listed by name; its three members are marked as in a cycle.
    const cycles = page.getByTestId('evictor-cycle')
    expect(await cycles.count()).toBe(1)
    expect(cycleOf(await cycles.first().locator('.evictor-cycle-label').textContent(), [A, B, C])).toBe(true)
    const cyclic = await page.locator('[data-testid="evictor-node-button"].cyclic').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')))
    expect(cyclic.sort()).toEqual([A, B, C])
    // The stray edges (a one-eviction edge; the rest of the program's, the run being warmed by
    // it) are under the default 5% threshold.
    expect(await page.getByTestId('evictor-counts').textContent()).toMatch(/^3 nodes · 3 edges · [1-9]\d* hidden/)
    await screenshot(page, 'evictors-1-graph')

    // Threshold 0 shows the stray edges too (unknown_Read_33@sumfunc+… evicted one of B's lines;
    // the rest of the program, which warmed the run, evicted a few): still one cycle, and the new
    // nodes are not in it. Back at 5%, the nodes keep their places.
    const slider = page.getByTestId('evictor-threshold')
    await slider.fill('0')
    await expect.poll(() => page.getByTestId('evictor-counts').textContent()).toMatch(/^5 nodes · 6 edges/)
    expect(await cycles.count()).toBe(1)
    const stray = (await nodeIds()).find((id) => id.startsWith('unknown_Read_'))!
    expect(stray).toMatch(/^unknown_Read_33@sumfunc\+0x[0-9a-f]+$/)
    expect(await page.locator(`[data-testid="evictor-node-button"][data-node="${stray}"]`).getAttribute('class')).not.toContain('cyclic')
    await expect.poll(() => canvas.getAttribute('data-layout-state')).toBe('done')
    const at0 = await canvas.getAttribute('data-node-positions')
    await slider.fill('5')
    await expect.poll(() => page.getByTestId('evictor-counts').textContent()).toMatch(/^3 nodes · 3 edges/)
    const kept = JSON.parse((await canvas.getAttribute('data-node-positions'))!) as Record<string, [number, number]>
    const before0 = JSON.parse(at0!) as Record<string, [number, number]>
    for (const id of [A, B, C]) expect(kept[id]).toEqual(before0[id])

    // Highlight the cycle (dims everything else).
    await cycles.first().click()
    expect(await cycles.first().getAttribute('aria-pressed')).toBe('true')
    await screenshot(page, 'evictors-2-cycle-highlighted')

    // Click B's read on the canvas: its details say who evicts it, and its line is selected.
    const positions = JSON.parse((await canvas.getAttribute('data-node-positions')) ?? '{}') as Record<string, [number, number]>
    const box = (await canvas.boundingBox())!
    const [bx, by] = positions[B]!
    await page.mouse.click(box.x + bx, box.y + by)
    const details = page.getByTestId('evictor-node')
    await details.waitFor()
    const detailText = (await details.textContent())!
    expect(detailText.startsWith(B)).toBe(true)
    expect(detailText).toMatch(/conflict\.c:30.*in cycle 1/s)
    // All or nearly all (the run is warmed by the rest of the program, which evicts a few).
    expect(detailText).toMatch(new RegExp(`Evicted by\\s*${A.replace(/\+/g, '\\+')} (9[5-9]|100)%`))
    await screenshot(page, 'evictors-3-node-selected')
    await page.getByTestId('evictor-show-source').click()
    await expect.poll(() => page.getByTestId('source-view').getAttribute('data-selected-line'), { timeout: 30_000 }).toBe('30')
    expect(await page.locator('[data-testid="reference-row"][aria-selected="true"]').first().getAttribute('data-location')).toMatch(/conflict\.c:30$/)

    // By keyboard: back to the tab with Alt+2, then a node entry with Enter.
    await page.keyboard.press('Alt+2')
    await canvas.waitFor()
    await page.locator(`[data-testid="evictor-node-button"][data-node="${C}"]`).focus()
    await page.keyboard.press('Enter')
    await expect.poll(async () => (await details.textContent())!.startsWith(C)).toBe(true)

    // Exports: the CSV has METRIC's edges, the PNG is a PNG.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('evictor-export-csv').click()])
    const csvText = readFileSync((await csv.path())!, 'utf8')
    // C evicts A's lines (all of them but the one the rest of the program had in the cache).
    expect(csvText).toMatch(new RegExp(`^${C.replace(/\+/g, '\\+')},${A.replace(/\+/g, '\\+')},819[12],1\\.000000,1$`, 'm'))
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('evictor-export-png').click()])
    const bytes = readFileSync((await png.path())!)
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(bytes.length).toBeGreaterThan(2000)
    const [svg] = await Promise.all([page.waitForEvent('download'), page.getByTestId('evictor-export-svg').click()])
    const svgText = readFileSync((await svg.path())!, 'utf8')
    expect(svgText.match(/<circle /g)?.length).toBeGreaterThanOrEqual(3)
    for (const id of [A, B, C]) expect(svgText).toContain(`>${id}</text>`)
    writeFileSync(join(artifactsDir, 'evictors-export.svg'), svgText)

    // Data structures: the same cycle as A ↔ B ↔ C.
    await page.getByTestId('evictor-mode').getByText('Data structures').click()
    await expect.poll(async () => cycleOf(await cycles.first().locator('.evictor-cycle-label').textContent(), ['A', 'B', 'C'])).toBe(true)

    // Dark theme: screenshot for a look (labels on their own backgrounds).
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.getByTestId('evictor-mode').getByText('References').click()
    await expect.poll(() => canvas.getAttribute('data-layout-state')).toBe('done')
    await screenshot(page, 'evictors-4-dark')

    expect(problems).toEqual([])
    await page.close()
  })
})
