#!/usr/bin/env node
// Heatmap repaint on a 10,000-line source file (issue 7's budget: under 100 ms), in web mode
// in Chromium. Generates a C file whose kernel has one load per line, traces and simulates it
// with the CLI, opens it in the UI, then switches the paint metric repeatedly and reads the
// app's `stride:heat-repaint` measures (heat computation -> frame with the new decorations).
// Usage: npm run build && node bench/ui/heatmap.mjs [lines=10000] [repaints=20]
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

const root = join(import.meta.dirname, '..', '..')
const cli = join(root, 'out', 'main', 'cli.js')
const lines = Number(process.argv[2] ?? 10000)
const repaints = Number(process.argv[3] ?? 20)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-heat-'))

// One statement per line; strides vary so lines get different miss counts.
const body = Array.from({ length: lines - 8 }, (_, i) => `    s += a[${(i * 37) % 65536} * 8 + ${i % 8}];`)
const source = ['double a[65536 * 8];', 'double kernel(void)', '{', '    double s = 0;', ...body, '    return s;', '}', 'int main(void) { return kernel() > 1; }'].join('\n') + '\n'
const file = join(dir, 'wide.c')
writeFileSync(file, source)
const bin = join(dir, 'wide')
const cc = spawnSync('cc', ['-g', '-O0', '-o', bin, file], { encoding: 'utf8' })
if (cc.status !== 0) throw new Error(cc.stderr)
const home = join(dir, 'home')
const env = { ...process.env, STRIDE_HOME: home }
const session = join(dir, 'wide.stride')
for (const args of [
  ['trace', '--launch', bin, '--functions', 'kernel', '--out', session],
  ['simulate', session, '--cache', 'L1:32K:8:64', '--cache', 'L2:256K:8:64']
]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'ignore', 'pipe'] })
  if (r.status !== 0) throw new Error(`stride ${args[0]} failed: ${r.stderr}`)
}

const server = spawn(process.execPath, [cli, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
const url = await new Promise((resolve, reject) => {
  let out = ''
  server.stdout.setEncoding('utf8').on('data', (d) => {
    out += d
    const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out)
    if (m) resolve(m[0])
  })
  server.once('exit', (c) => reject(new Error(`serve exited ${c}`)))
})
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run']
})
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  await page.goto(url)
  await page.getByTestId('open-session-path').fill(session)
  await page.getByTestId('open-session').click()
  await page.locator('[data-testid="source-view"] .heat-line').first().waitFor({ timeout: 120_000 })
  const painted = await page.evaluate(() => document.querySelector('[data-testid="source-view"]')?.getAttribute('data-hottest-line'))
  const metrics = ['ratio', 'misses', 'spatialWaste', 'temporalShare', 'evictionsCaused']
  const times = []
  const parts = { compute: [], set: [] }
  for (let i = 0; i < repaints; i++) {
    await page.evaluate(() => performance.clearMeasures())
    await page.getByTestId('metric-select').selectOption(metrics[i % metrics.length])
    await page.waitForFunction(() => performance.getEntriesByName('stride:heat-repaint').length > 0, null, { timeout: 30_000 })
    times.push(await page.evaluate(() => performance.getEntriesByName('stride:heat-repaint')[0].duration))
    const [c, st] = await page.evaluate(() => ['stride:heat-compute', 'stride:heat-set'].map((n) => performance.getEntriesByName(n).reduce((a, e) => a + e.duration, 0)))
    parts.compute.push(c)
    parts.set.push(st)
  }
  times.sort((a, b) => a - b)
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))]
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}, Chromium headless`)
  console.log(`file: ${lines} lines, hottest line ${painted}; ${repaints} repaints (metric switches)`)
  console.log(`repaint ms: median ${q(0.5).toFixed(1)}, p90 ${q(0.9).toFixed(1)}, max ${times[times.length - 1].toFixed(1)}`)
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]
  console.log(`  of which: heat computation ${med(parts.compute).toFixed(1)} ms, Monaco decorations set ${med(parts.set).toFixed(1)} ms (medians); the rest is React and the frame`)
  console.log(`budget 100 ms: median is ${(q(0.5) / 100).toFixed(2)}x the budget`)
} finally {
  await browser.close()
  server.kill('SIGTERM')
  rmSync(dir, { recursive: true, force: true })
}
