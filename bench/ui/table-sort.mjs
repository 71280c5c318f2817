// Table sort and filter time at scale: `node bench/ui/table-sort.mjs [N ...]` (default 100000);
// then, in Chromium, the app's access-point table (DataTable) over N rows: a header click to
// the committed sort (table-sort-page.tsx; `--no-browser` skips it).
// Bundles the app's table logic (src/renderer/logic/data-table.ts) and times, on N synthetic
// access points, the first sort of a numeric and of a text column (keys computed then), the
// flip of direction, a filter, the keys computed ahead (`prepare()`, what the table does in idle
// time after rows arrive) and a first text sort after that; the median of 5. Prints a warning past the 100 ms budget.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const here = fileURLToPath(new URL('.', import.meta.url))
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
const browserToo = !process.argv.includes('--no-browser')
if (sizes.length === 0) sizes.push(100_000)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-table-'))
const out = join(dir, 'data-table.mjs')
await build({ entryPoints: [join(here, '../../src/renderer/logic/data-table.ts')], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'warning' })
const { createTableModel } = await import(pathToFileURL(out).href)

const columns = [
  { key: 'id', type: 'text', sortValue: (r) => r.id },
  { key: 'location', type: 'text', sortValue: (r) => r.location },
  { key: 'misses', type: 'number', sortValue: (r) => r.misses },
  { key: 'ratio', type: 'number', sortValue: (r) => r.ratio }
]
function rows(n, seed) {
  let x = seed
  const rnd = () => ((x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32)
  return Array.from({ length: n }, (_, i) => ({ id: `V${Math.floor(rnd() * 9000)}_Read_${i}@f+0x${(i * 7).toString(16)}`, location: `file${i % 53}.c:${Math.floor(rnd() * 4000)}`, misses: Math.floor(rnd() * 1e6), ratio: rnd() < 0.05 ? null : rnd() }))
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const time = (f) => {
  const t = performance.now()
  f()
  return performance.now() - t
}
console.log('rows      first numeric sort  flip  first text sort  flip  filter  prepare all  text sort after prepare (ms, median of 5)')
let over = false
for (const n of sizes) {
  const t = { num: [], numFlip: [], text: [], textFlip: [], filter: [], prepare: [], prepared: [] }
  for (let s = 1; s <= 5; s++) {
    const data = rows(n, s)
    const m = createTableModel(data, columns)
    t.num.push(time(() => m.sorted({ key: 'misses', dir: 'desc' })))
    t.numFlip.push(time(() => m.sorted({ key: 'misses', dir: 'asc' })))
    t.text.push(time(() => m.sorted({ key: 'id', dir: 'asc' })))
    t.textFlip.push(time(() => m.sorted({ key: 'id', dir: 'desc' })))
    t.filter.push(time(() => m.filter(m.sorted({ key: 'misses', dir: 'desc' }), 'read_12')))
    const ahead = createTableModel(data, columns)
    t.prepare.push(time(() => {
      while (ahead.prepare());
    }))
    t.prepared.push(time(() => ahead.sorted({ key: 'location', dir: 'asc' })))
  }
  const r = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]))
  console.log(`${String(n).padEnd(9)} ${r.num.toFixed(1).padStart(18)}  ${r.numFlip.toFixed(1).padStart(4)}  ${r.text.toFixed(1).padStart(15)}  ${r.textFlip.toFixed(1).padStart(4)}  ${r.filter.toFixed(1).padStart(6)}  ${r.prepare.toFixed(1).padStart(11)}  ${r.prepared.toFixed(1).padStart(22)}`)
  if (n <= 100_000 && [r.num, r.numFlip, r.textFlip, r.filter, r.prepared].some((v) => v > 100)) over = true
}
if (over) console.log('warning: a sort (keys computed) or filter of up to 100 K rows took more than 100 ms on this machine')

if (browserToo) {
  const { chromium } = await import('playwright-core')
  const { writeFileSync } = await import('node:fs')
  const page = join(dir, 'page.js')
  await build({ entryPoints: [join(here, 'table-sort-page.tsx')], bundle: true, format: 'iife', outfile: page, jsx: 'automatic', define: { 'process.env.NODE_ENV': '"production"' }, minify: true, logLevel: 'warning' })
  const css = ['base.css', 'layout.css'].map((f) => `<link rel="stylesheet" href="${pathToFileURL(join(here, '../../src/renderer/styles', f)).href}">`).join('')
  const html = join(dir, 'index.html')
  writeFileSync(html, `<!doctype html><html><head>${css}<style>#root{height:700px;display:flex;flex-direction:column}</style></head><body><div id="root"></div><script src="page.js"></script></body></html>`)
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
  console.log('\nIn Chromium, the access-point table: header click to commit (to next frame), ms')
  for (const n of sizes) {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await tab.goto(pathToFileURL(html).href)
    await tab.evaluate((n) => window.benchMount(n), n)
    const drawn = await tab.locator('[data-testid="reference-row"]').count()
    // A first click sorts numbers largest first, text A to Z; a second flips.
    const steps = [['id', 'ascending'], ['id', 'descending'], ['misses', 'descending'], ['misses', 'ascending'], ['reads', 'descending'], ['location', 'ascending'], ['ratio', 'descending']]
    const out = []
    for (const [key, sortDir] of steps) {
      const t = await tab.evaluate(([k, d]) => window.benchSort(k, d), [key, sortDir])
      out.push(`${key} ${sortDir.slice(0, 4)} ${t.commitMs.toFixed(1)} (${t.frameMs.toFixed(1)})`)
      if (n <= 100_000 && t.commitMs > 100) over = true
    }
    console.log(`${n} rows, ${drawn} drawn: ${out.join(', ')}`)
    await tab.close()
  }
  await browser.close()
  if (over) console.log('warning: a sort of up to 100 K rows took more than 100 ms on this machine')
}
rmSync(dir, { recursive: true, force: true })
