#!/usr/bin/env node
// Issue 45's "the Advisor's diagnoses on screen within 1 s of the trace ending", measured in the
// real UI: `stride serve` (web mode, 127.0.0.1, its per-run token) driven in Debian's Chromium
// with playwright-core, as the e2e tests do. Each trace is launched from the Launch dialog
// ("Your program": the corpus program, its arguments, the corpus's two levels typed into the
// cache form; whole program, or the one function the corpus names ticked in the picker). The
// programs run in the corpus's folder, as in bench/corpus.mjs, but their stdout goes where the app
// puts it (the job banner, then the session's Program output panel), not to /dev/null.
//
// Times are read in the page (performance.now(), one clock), not by polling from Node:
//   trace ended    the backend's `finished` event of the trace job arriving on the page's
//                  WebSocket (sent once the session and its first run are stored; the renderer
//                  then opens the session). An init script wraps the page's WebSocket to see it.
//   session        the workspace tabs (Source, Evictors, Advisor, ...) in the DOM: the run's
//                  report has arrived; the session opens on Source.
//   advisor        one click: the Advisor tab is clicked (in the page, the moment it exists);
//                  visible = the first advice card (`advice-item`, with its text; the first
//                  level, D1, as the tab opens) inserted, and the next frame after it painted
//                  (requestAnimationFrame, then a task).
//   objects        one click: the Data structures tab, which asks for the exact ranking as it
//                  opens (`getObjects`, exact: the trace stored it); visible = the ranking's
//                  summary and first table row, and the frame after them. (Comparing the other
//                  methods is a button more and a re-simulation: not measured here.)
// Advisor and objects are measured on separate traces (one view opened per trace, so neither
// waits behind the other); per round every program runs both before the next round.
// A run whose trace fails, whose advisor ends empty or in an error, or that shows nothing
// within the timeouts stops the bench with one line and exit status 1.
//
// Usage: npm run build && node bench/ui/advisor-latency.mjs [N=3] [program ...]
//   STRIDE_BENCH_SHOTS=DIR    screenshots of round 1's views as they were measured
//   STRIDE_BENCH_TIMELINE=1   each run's requests after the trace ended (sent → replied, bytes) on stderr
//   STRIDE_BENCH_CPU_PROF=DIR the server under node --cpu-prof (one .cpuprofile per thread:
//                             main, task workers, trace workers), written when it stops
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cachegrindLevels, corpusDir, prepareCorpus } from '../corpus-programs.mjs'
import { programColumns } from '../program-columns.mjs'
import { BenchFailure, median, runInBrowser, socketSpy, startServer } from './web-app.mjs'

const args = process.argv.slice(2)
const N = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 3
const wanted = new Set(args)
const TRACE_TIMEOUT_MS = 10 * 60_000
/** After the trace ended: the view must be on screen by then, else the bench fails. */
const VIEW_TIMEOUT_MS = 120_000
const shots = process.env.STRIDE_BENCH_SHOTS || null
const cpuProf = process.env.STRIDE_BENCH_CPU_PROF || null
const timeline = process.env.STRIDE_BENCH_TIMELINE === '1'

const programs = prepareCorpus(corpusDir(), (line) => console.log(line)).filter((p) => wanted.size === 0 || wanted.has(p.name))
if (programs.length === 0) throw new Error(`no corpus program is named ${[...wanted].join(', ')}`)
const levels = cachegrindLevels().map((l) => {
  const [name, size, assoc, line] = l.split(':')
  return { name, size, assoc, line }
})
const cases = programs.flatMap((p) => [{ p, scope: 'whole', functions: null }, ...(p.functions ? [{ p, scope: p.functions, functions: p.functions }] : [])])
for (const c of cases)
  if (c.p.args.some((a) => /[\s"'\\]/.test(a))) throw new Error(`${c.p.name}: an argument the dialog's one-line field would split: ${c.p.args.join(' ')}`)

/** In the page, before the app's scripts: the WebSocket spy and the clicks (see the header). */
function pageProbe(view) {
  const now = () => performance.now()
  // The socket's side (requests, the trace's `finished`) is socketSpy's, added before this.
  const b = window.__bench
  const mark = (k) => {
    if (b.marks[k] === undefined) b.marks[k] = now()
  }
  // Visible: inserted, then the frame that paints it (a task queued from its animation frame runs after the paint).
  const painted = (k) => {
    if (b.marks[`${k}Dom`] !== undefined) return
    mark(`${k}Dom`)
    requestAnimationFrame(() => setTimeout(() => mark(k), 0))
  }
  const onDom = () => {
    if (b.marks.finished === undefined) return
    if (document.querySelector('[data-testid="workspace-tabs"]')) mark('session')
    const tab = document.getElementById(view === 'advisor' ? 'tab-advisor' : 'tab-objects')
    if (tab && b.marks.tabClicked === undefined) {
      mark('tabClicked')
      tab.click()
    }
    if (view === 'advisor') {
      const item = document.querySelector('[data-testid="advice-item"]')
      if (item && item.textContent.trim() !== '') painted('shown')
      const empty = document.querySelector('[data-testid="advisor-empty"]')
      if (empty) b.outcome ??= `the Advisor shows no diagnosis: ${empty.textContent}`
      const error = document.querySelector('.advisor-view [role="alert"]')
      if (error) b.outcome ??= `the Advisor shows an error: ${error.textContent}`
    } else {
      const row = document.querySelector('.objects-table-wrap tbody tr')
      if (row && row.textContent.trim() !== '' && document.querySelector('[data-testid="objects-summary"]')) painted('shown')
      const error = document.querySelector('[data-testid="objects-error"]')
      if (error) b.outcome ??= `the Data structures tab shows an error: ${error.textContent}`
    }
    if (document.querySelector('[data-testid="job-failed"]')) b.outcome ??= `trace failed: ${document.querySelector('[data-testid="job-failed"]').textContent}`
  }
  new MutationObserver(onDom).observe(document, { childList: true, subtree: true, characterData: true })
}


/** One trace launched from the dialog, then one view opened at its end; the page's marks (ms). */
async function measure(browser, url, c, view, shot) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  const problems = []
  page.on('pageerror', (e) => problems.push(e.message))
  try {
    await page.addInitScript(socketSpy, { kind: 'trace', mark: 'finished' })
    await page.addInitScript(pageProbe, view)
    await page.goto(url)
    await page.getByTestId('launch-button').click()
    await page.getByTestId('source-custom').check()
    await page.getByTestId('program-path').fill(c.p.program)
    await page.getByTestId('program-args').fill(c.p.args.join(' '))
    // The corpus's cache, typed into the form (the form's default is the host's, the same here).
    await page.getByTestId('cache-size-0').waitFor({ timeout: 60_000 })
    if ((await page.locator('[data-testid^="cache-size-"]').count()) !== levels.length) throw new BenchFailure(`the cache form does not have ${levels.length} levels`)
    for (const [i, l] of levels.entries()) {
      await page.getByTestId(`cache-size-${i}`).fill(l.size)
      await page.getByTestId(`cache-assoc-${i}`).fill(l.assoc)
      await page.getByTestId(`cache-line-${i}`).fill(l.line)
    }
    await page.getByTestId('function-picker').waitFor({ timeout: 60_000 })
    if (c.functions) {
      await page.getByTestId('function-filter').fill(c.functions)
      // The row shown as the name (C++: demangled, with or without its parameters); the checkbox is named by the symbol.
      const rows = page.locator('.function-row').filter({ has: page.locator('code.function-name', { hasText: c.functions }) })
      const ids = await rows.evaluateAll((els, name) => els.filter((e) => { const t = e.querySelector('code.function-name').textContent; return t === name || t.startsWith(`${name}(`) }).map((e) => e.querySelector('input').dataset.testid), c.functions)
      if (ids.length !== 1) throw new BenchFailure(`${c.p.name}: the function picker lists ${ids.length} functions named ${c.functions}`)
      await page.getByTestId(ids[0]).check()
    }
    await page.getByTestId('start-trace').click()
    await page.getByTestId('launch-dialog').waitFor({ state: 'detached', timeout: 60_000 })
    const state = () => page.evaluate(() => ({ marks: window.__bench.marks, outcome: window.__bench.outcome }))
    await page.waitForFunction(() => window.__bench.marks.finished !== undefined || window.__bench.outcome !== null, null, { timeout: TRACE_TIMEOUT_MS, polling: 250 }).catch(() => {
      throw new BenchFailure(`${c.p.name} ${c.scope}: the trace did not end within ${TRACE_TIMEOUT_MS / 1000} s`)
    })
    const ended = await state()
    if (ended.outcome && ended.marks.finished === undefined) throw new BenchFailure(`${c.p.name} ${c.scope}: ${ended.outcome.replace(/\s+/g, ' ')}`)
    await page.waitForFunction(() => window.__bench.marks.shown !== undefined || window.__bench.outcome !== null, null, { timeout: VIEW_TIMEOUT_MS, polling: 100 }).catch(async () => {
      const s = await state()
      throw new BenchFailure(`${c.p.name} ${c.scope}: no ${view} on screen ${VIEW_TIMEOUT_MS / 1000} s after the trace ended (reached: ${Object.keys(s.marks).join(', ')})`)
    })
    const b = await page.evaluate(() => window.__bench)
    if (b.outcome && b.marks.shown === undefined) throw new BenchFailure(`${c.p.name} ${c.scope}: ${b.outcome.replace(/\s+/g, ' ')}`)
    if (problems.length > 0) throw new BenchFailure(`${c.p.name} ${c.scope}: the page reported ${problems[0]}`)
    if (shot) await page.screenshot({ path: join(shots, `${c.p.name}-${c.scope.replace(/\W+/g, '_')}-${view}.png`) })
    if (timeline) {
      const at = (t) => (t === undefined ? '-' : `${Math.round(t - b.marks.finished)}`)
      const rows = Object.values(b.requests).filter((r) => r.sent >= b.marks.finished - 1).map((r) => `${r.method} ${at(r.sent)}→${at(r.replied)} ms ${r.bytes ?? '?'} B`)
      const marks = Object.entries(b.marks).map(([k, t]) => `${k} ${at(t)}`)
      process.stderr.write(`  ${c.p.name} ${c.scope} ${view}: ${marks.join(', ')}\n    ${rows.join('\n    ')}\n`)
    }
    const request = (method) => Object.values(b.requests).find((r) => r.method === method && r.sent >= b.marks.finished) ?? null
    return { marks: b.marks, events: b.events, report: request('getReport') ?? request('getRunFigures'), compute: request(view === 'advisor' ? 'getAdvice' : 'getObjects') }
  } catch (e) {
    // A step that timed out (Playwright's message runs on for lines): which run, which step, in one line.
    if (e instanceof BenchFailure) throw e
    throw new BenchFailure(`${c.p.name} ${c.scope} ${view}: ${String(e?.message ?? e).split('\n')[0]}`)
  } finally {
    await page.close()
  }
}

const work = mkdtempSync(join(tmpdir(), 'stride-bench-advisor-'))
const home = join(work, 'home')
mkdirSync(home)
if (shots) mkdirSync(shots, { recursive: true })
if (cpuProf) mkdirSync(cpuProf, { recursive: true })
// The programs run in the server's folder (the trace inherits it): the corpus's, as bench/corpus.mjs runs them.
const server = startServer(home, cases[0].p.cwd, cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : [])
const results = cases.map(() => ({ advisor: [], objects: [], events: null }))
await runInBrowser('advisor-latency', server, work, async (open) => {
  const { url, browser } = await open()
  console.log(`corpus ${corpusDir()}; cache ${levels.map((l) => `${l.name}:${l.size}:${l.assoc}:${l.line}`).join(' ')}; N = ${N} rounds, interleaved`)
  for (let round = 0; round < N; round++) {
    for (const [i, c] of cases.entries()) {
      // Alternate which view goes first, so neither always follows the other's leftovers.
      for (const view of round % 2 === 0 ? ['advisor', 'objects'] : ['objects', 'advisor']) {
        const m = await measure(browser, url, c, view, shots !== null && round === 0)
        results[i][view].push(m)
        results[i].events ??= m.events
        process.stderr.write(`round ${round + 1}: ${c.p.name} ${c.scope} ${view} ${((m.marks.shown - m.marks.finished) / 1000).toFixed(2)} s\n`)
      }
    }
  }
})

if (process.exitCode !== 1) {
  const s = (ms) => (ms / 1000).toFixed(2)
  const since = (runs, k, from = 'finished') => median(runs.map((r) => r.marks[k] - r.marks[from]))
  const rt = (runs, key) => median(runs.map((r) => (r[key] ? r[key].replied - r[key].sent : NaN)))
  const columns = programColumns(cases)
  console.log('\n' + columns.header('program      scope                       accesses  trace-end→advisor s  →objects s   →session s  getAdvice s  getObjects s'))
  cases.forEach((c, i) => {
    const r = results[i]
    console.log(
      [
        ...columns.cells(c),
        String(r.events ?? '?').padStart(10),
        s(since(r.advisor, 'shown')).padStart(20),
        s(since(r.objects, 'shown')).padStart(11),
        s(since([...r.advisor, ...r.objects], 'session')).padStart(12),
        s(rt(r.advisor, 'compute')).padStart(12),
        s(rt(r.objects, 'compute')).padStart(13)
      ].join(' ')
    )
  })
  console.log('\ntrace-end: the trace job\'s `finished` event on the page\'s WebSocket. advisor: Advisor tab clicked at once, first advice card painted;')
  console.log('objects: Data structures tab clicked at once, its exact ranking painted; session: the run\'s tabs in the DOM.')
  console.log('getAdvice / getObjects: the request\'s round trip as the page saw it (sent → reply arrived). Medians of N.')
}
