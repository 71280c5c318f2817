#!/usr/bin/env node
// Issue 45's "a what-if (app, and `stride simulate` on the CLI) at most 0.5x a Cachegrind
// re-run", the app's side measured in the real UI, beside the CLI's and Cachegrind's in one run.
// The what-if asked is the one a user asks most of a stored trace: another last-level cache, here
// 8 MiB 16-way 64 B (a desktop L3) in place of the corpus's LL, the D1 unchanged.
//
// Per corpus program and scope (whole; the function the corpus names), the trace is made once
// with the CLI (`stride trace --cache D1 --cache LL`, the corpus's two levels; not measured).
// Then per round, interleaved, each on a fresh copy of that session (a user's first what-if):
//   cachegrind   valgrind --tool=cachegrind --LL=8388608,16,64 on the program: the re-run a
//                Cachegrind user's what-if is (wall seconds).
//   cli          stride simulate S --cache D1 --cache LL:8M:16:64 (wall seconds).
//   app          the session opened from the welcome screen (`stride serve`, Debian's Chromium
//                headless, playwright-core), the What-if tab (Alt+4), the LL's size and ways typed
//                into its form, "Run what-if" clicked (t0, in the page); *job*: the simulate job's
//                `finished` event reaching the page's WebSocket; *shown*: the Compare view's total
//                (`diff-total`) inserted and the frame after it painted. Times read in the page
//                (performance.now()).
// A what-if that fails, or shows nothing within the timeout, stops the bench with one line and
// exit status 1.
//
// Usage: npm run build && node bench/ui/whatif-latency.mjs [N=3] [program ...]
//   STRIDE_BENCH_TIMELINE=1   each what-if's requests after the click (sent → replied, bytes) on stderr
//   STRIDE_BENCH_PAGE_PROF=DIR the page's CPU profile from the click to the comparison painted, per what-if
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cachegrindLevels, corpusDir, prepareCorpus } from '../corpus-programs.mjs'
import { programColumns } from '../program-columns.mjs'
import { BenchFailure, median, runInBrowser, socketSpy, startServer } from './web-app.mjs'

const root = join(import.meta.dirname, '..', '..')
const stride = join(root, 'bin', 'stride.js')
const args = process.argv.slice(2)
const N = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 3
const wanted = new Set(args)
const WHATIF_TIMEOUT_MS = 5 * 60_000
const timeline = process.env.STRIDE_BENCH_TIMELINE === '1'
const pageProf = process.env.STRIDE_BENCH_PAGE_PROF || null
/** The what-if's last level (the form's fields, the CLI's flag, Cachegrind's option). */
const LL = { size: '8M', assoc: '16', line: '64', bytes: 8 << 20 }

const programs = prepareCorpus(corpusDir(), (line) => console.log(line)).filter((p) => wanted.size === 0 || wanted.has(p.name))
if (programs.length === 0) throw new Error(`no corpus program is named ${[...wanted].join(', ')}`)
const levels = cachegrindLevels()
if (levels.length !== 2) throw new Error(`the corpus's hierarchy has ${levels.length} levels, not D1 and LL`)
const traceFlags = levels.flatMap((l) => ['--cache', l])
const whatIfFlags = ['--cache', levels[0], '--cache', `LL:${LL.size}:${LL.assoc}:${LL.line}`]
const cases = programs.flatMap((p) => [{ p, scope: 'whole', functions: null }, ...(p.functions ? [{ p, scope: p.functions, functions: p.functions }] : [])])

const work = mkdtempSync(join(tmpdir(), 'stride-bench-whatif-'))
const home = join(work, 'home')
mkdirSync(home)
const env = { ...process.env, STRIDE_HOME: home }


/** Wall seconds of one command (through /usr/bin/time), or a BenchFailure naming it. */
function wall(cmd, argv, cwd) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e', cmd, ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'ignore', 'pipe'] })
  if (r.status !== 0) throw new BenchFailure(`${cmd} ${argv.join(' ')} failed (${r.status}): ${r.stderr.trim().split('\n').slice(-3).join(' ')}`)
  return Number(r.stderr.trim().split('\n').pop())
}

const sh = (s) => `'${s.replaceAll("'", `'\\''`)}'`

function cachegrindRerun(p) {
  const line = [p.program, ...p.args].map(sh).join(' ') + (p.stdin ? ` < ${sh(p.stdin)}` : '') + ' > /dev/null'
  return wall('sh', ['-c', `valgrind --tool=cachegrind --LL=${LL.bytes},${LL.assoc},${LL.line} --cachegrind-out-file=/dev/null ${line} 2>/dev/null`], p.cwd)
}

/** The session every round copies (made once per case, with the corpus's two levels). */
function traceOnce(c, out) {
  const argv = ['trace', ...(c.functions ? ['--functions', c.functions] : []), '--out', out, '--force', ...traceFlags, '--launch', c.p.program, '--', ...c.p.args]
  const line = `${[process.execPath, stride, ...argv].map(sh).join(' ')}${c.p.stdin ? ` < ${sh(c.p.stdin)}` : ''} > /dev/null`
  const r = spawnSync('sh', ['-c', line], { cwd: c.p.cwd, env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
  if (r.status !== 0) throw new BenchFailure(`${c.p.name} ${c.scope}: the trace failed: ${r.stderr.trim().split('\n').pop()}`)
}

let copies = 0
function freshCopy(session) {
  const copy = join(work, `copy-${++copies}.stride`)
  copyFileSync(session, copy)
  return copy
}

/** In the page, before the app's scripts: the WebSocket spy and the marks (see the header). */
function pageProbe() {
  const now = () => performance.now()
  // The socket's side (requests, the simulation's `finished` as `job`) is socketSpy's, added before this.
  const b = window.__bench
  const mark = (k) => {
    if (b.marks[k] === undefined) b.marks[k] = now()
  }
  // Only what changed is looked at: a search of the whole page at every change (the progress
  // line's, many a second) took ~100 ms of the page's thread during a what-if on lz4.
  const TOTAL = '[data-testid="diff-total"]'
  const FAILED = '[data-testid="job-failed"], [data-testid="whatif-error"]'
  // The changed node's own element and what holds it (a text changed, children replaced), and
  // an added node's subtree.
  const found = (node, selector, added) => {
    const e = node.nodeType === 1 ? node : node.parentElement
    return e?.closest(selector) ?? (added && node.nodeType === 1 ? node.querySelector(selector) : null)
  }
  new MutationObserver((records) => {
    if (b.marks.clicked === undefined) return
    for (const r of records) {
      for (const [node, added] of [[r.target, false], ...[...r.addedNodes].map((n) => [n, true])]) {
        const total = b.marks.shownDom === undefined ? found(node, TOTAL, added) : null
        if (total && total.textContent.includes('→')) {
          mark('shownDom')
          requestAnimationFrame(() => setTimeout(() => mark('shown'), 0))
        }
        const failed = found(node, FAILED, added)
        if (failed) b.outcome ??= `the what-if failed: ${failed.textContent}`
      }
    }
  }).observe(document, { childList: true, subtree: true, characterData: true })
}

/** One what-if from the form on a fresh copy of the session; the page's marks (ms). */
async function measureApp(browser, url, c, session) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  const problems = []
  page.on('pageerror', (e) => problems.push(e.message))
  try {
    await page.addInitScript(socketSpy, { kind: 'simulate', mark: 'job' })
    await page.addInitScript(pageProbe)
    await page.goto(url)
    await page.getByTestId('open-session-path').fill(session)
    await page.getByTestId('open-session').click()
    await page.getByTestId('workspace-tabs').waitFor({ timeout: 120_000 })
    await page.locator('#tab-whatif').click()
    const form = page.getByTestId('whatif-form')
    await form.waitFor({ timeout: 60_000 })
    await page.getByTestId('cache-size-1').fill(LL.size)
    await page.getByTestId('cache-assoc-1').fill(LL.assoc)
    await page.getByTestId('cache-line-1').fill(LL.line)
    const cdp = pageProf ? await page.context().newCDPSession(page) : null
    if (cdp) {
      await cdp.send('Profiler.enable')
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
      await cdp.send('Profiler.start')
    }
    await page.evaluate(() => {
      window.__bench.marks.clicked = performance.now()
      document.querySelector('[data-testid="run-whatif"]').click()
    })
    await page.waitForFunction(() => window.__bench.marks.shown !== undefined || window.__bench.outcome !== null, null, { timeout: WHATIF_TIMEOUT_MS, polling: 50 }).catch(async () => {
      const marks = await page.evaluate(() => Object.keys(window.__bench.marks))
      throw new BenchFailure(`${c.p.name} ${c.scope}: no comparison on screen ${WHATIF_TIMEOUT_MS / 1000} s after the what-if was started (reached: ${marks.join(', ')})`)
    })
    const b = await page.evaluate(() => window.__bench)
    if (b.outcome && b.marks.shown === undefined) throw new BenchFailure(`${c.p.name} ${c.scope}: ${b.outcome.replace(/\s+/g, ' ')}`)
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop')
      mkdirSync(pageProf, { recursive: true })
      writeFileSync(join(pageProf, `${c.p.name}-${c.scope.replace(/\W+/g, '_')}-${Date.now()}.cpuprofile`), JSON.stringify(profile))
    }
    if (problems.length > 0) throw new BenchFailure(`${c.p.name} ${c.scope}: the page reported ${problems[0]}`)
    if (timeline) {
      const at = (t) => (t === undefined ? '-' : `${Math.round(t - b.marks.clicked)}`)
      const rows = Object.values(b.requests).filter((r) => r.sent >= b.marks.clicked - 1).map((r) => `${r.method} ${at(r.sent)}→${at(r.replied)} ms ${r.bytes ?? '?'} B`)
      const marks = Object.entries(b.marks).map(([k, t]) => `${k} ${at(t)}`)
      process.stderr.write(`  ${c.p.name} ${c.scope}: ${marks.join(', ')}\n    ${rows.join('\n    ')}\n`)
    }
    return b.marks
  } catch (e) {
    if (e instanceof BenchFailure) throw e
    throw new BenchFailure(`${c.p.name} ${c.scope}: ${String(e?.message ?? e).split('\n')[0]}`)
  } finally {
    await page.close()
  }
}

const server = startServer(home, work)
const results = cases.map(() => ({ cg: [], cli: [], job: [], shown: [] }))
await runInBrowser('whatif-latency', server, work, async (open) => {
  const sessions = cases.map((c, i) => {
    const s = join(work, `${c.p.name}-${i}.stride`)
    traceOnce(c, s)
    process.stderr.write(`traced ${c.p.name} ${c.scope}\n`)
    return s
  })
  const { url, browser } = await open()
  console.log(`corpus ${corpusDir()}; traced with ${levels.join(' ')}; what-if ${whatIfFlags.slice(1).filter((f) => f !== '--cache').join(' ')}; N = ${N} rounds, interleaved`)
  for (let round = 0; round < N; round++) {
    for (const [i, c] of cases.entries()) {
      const r = results[i]
      r.cg.push(cachegrindRerun(c.p))
      r.cli.push(wall(process.execPath, [stride, 'simulate', freshCopy(sessions[i]), ...whatIfFlags], work))
      const m = await measureApp(browser, url, c, freshCopy(sessions[i]))
      r.job.push((m.job - m.clicked) / 1000)
      r.shown.push((m.shown - m.clicked) / 1000)
      process.stderr.write(`round ${round + 1}: ${c.p.name} ${c.scope} cg ${r.cg.at(-1).toFixed(2)} s, cli ${r.cli.at(-1).toFixed(2)} s, app ${r.shown.at(-1).toFixed(2)} s\n`)
    }
  }
})

if (process.exitCode !== 1) {
  const f = (x) => x.toFixed(2)
  const columns = programColumns(cases)
  console.log('\n' + columns.header('program      scope                        cg re-run s   cli s  cli/cg   app job s  app shown s  app/cg'))
  cases.forEach((c, i) => {
    const r = results[i]
    const cg = median(r.cg)
    console.log(
      [
        ...columns.cells(c),
        f(cg).padStart(12),
        f(median(r.cli)).padStart(7),
        f(median(r.cli) / cg).padStart(7),
        f(median(r.job)).padStart(11),
        f(median(r.shown)).padStart(12),
        f(median(r.shown) / cg).padStart(7)
      ].join(' ')
    )
  })
  console.log('\ncg re-run: Cachegrind with the what-if\'s LL. cli: stride simulate with it. app: "Run what-if" clicked → the simulate job\'s')
  console.log('`finished` event on the page (job) → the Compare view\'s total painted (shown). Medians of N; each on a fresh copy of the session.')
}
