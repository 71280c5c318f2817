// Evictor graph layout time in Chromium: `node bench/ui/evictor-layout.mjs [N ...]`.
// Bundles the app's graph model, stylesheet and fcose options (evictor-layout-page.mjs) and
// reports the median of 5 seeds per size: model, layout, and layout + first paint.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'

const here = fileURLToPath(new URL('.', import.meta.url))
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
if (sizes.length === 0) sizes.push(100, 300, 600)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-ui-'))
const bundle = join(dir, 'page.js')
await build({ entryPoints: [join(here, 'evictor-layout-page.mjs')], bundle: true, format: 'iife', outfile: bundle, logLevel: 'warning' })
const html = join(dir, 'index.html')
writeFileSync(html, `<!doctype html><html><body style="margin:0"><div id="cy" style="width:1200px;height:800px"></div><script src="page.js"></script></body></html>`)

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
await page.goto(`file://${html}`)
await page.evaluate(() => window.benchEvictorLayout(50, 99)) // warm-up (JIT)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log('references  nodes  edges  cycles  model ms  layout ms  layout+paint ms (median of 5)')
for (const n of sizes) {
  const runs = []
  for (let seed = 1; seed <= 5; seed++) runs.push(await page.evaluate(([n, s]) => window.benchEvictorLayout(n, s), [n, seed]))
  const r = runs[0]
  console.log(
    `${String(n).padStart(10)}  ${String(r.nodes).padStart(5)}  ${String(r.edges).padStart(5)}  ${String(r.cycles).padStart(6)}  ${median(runs.map((x) => x.modelMs)).toFixed(1).padStart(8)}  ${median(runs.map((x) => x.layoutMs)).toFixed(0).padStart(9)}  ${median(runs.map((x) => x.layoutMs + x.paintMs)).toFixed(0).padStart(15)}`
  )
}
await browser.close()
rmSync(dir, { recursive: true, force: true })
