#!/usr/bin/env node
// One truth per data structure, checked on real programs: every view's misses per data
// structure equal `stride objects --method exact`, and two traces of a program give the same
// report. Per program and scope (the corpus of corpus-programs.mjs, whole program and its
// function; the bundled examples' functions), at Cachegrind's D1 and LL:
//   - trace it twice (the first simulation at trace time), then one what-if (D1 halved);
//   - for the first run and the what-if: `report --by variable`, `objects --method exact` (each
//     level), `query '[{*},{*},{D1.misses,LL.misses}]'` (its per-data-structure totals) and
//     `report --against 1` (Compare: before and after) must give every data structure the same
//     misses;
//   - the two traces' reports (`report --json` by reference and by variable, the first run)
//     must be equal (the first traced with an empty cache, the second with what it filled),
//     and the same trace simulated twice too (for a function, two what-ifs: its first run is
//     warmed by the whole program, what-ifs replay the function alone).
// Prints one line per case and the differences found; exits 1 if any.
// Usage: npm run build && npm run examples && node bench/one-truth.mjs [program ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { corpusDir, prepareCorpus } from './corpus-programs.mjs'

const root = join(import.meta.dirname, '..')
const stride = join(root, 'bin', 'stride.js')
const wanted = new Set(process.argv.slice(2))
const work = mkdtempSync(join(tmpdir(), 'stride-one-truth-'))
const env = { ...process.env, STRIDE_HOME: join(work, 'home') }

function run(argv, cwd = work, extraEnv = {}) {
  const r = spawnSync(stride, argv, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 512 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
  if (r.status !== 0) throw new Error(`stride ${argv.join(' ')} failed (${r.status}): ${r.stderr.slice(-1500)}`)
  return r.stdout
}
const json = (argv) => JSON.parse(run([...argv, '--json']))

function cachegrindLevels() {
  const r = spawnSync('valgrind', ['--tool=cachegrind', '--cachegrind-out-file=/dev/null', '-v', '/bin/true'], { encoding: 'utf8' })
  const level = (name) => {
    const m = new RegExp(`${name}: ([\\d,]+) B, (\\d+)-way, (\\d+) B lines`).exec(r.stderr)
    if (!m) throw new Error(`cannot read Cachegrind's ${name} from its -v output`)
    return { name, size: Number(m[1].replaceAll(',', '')), assoc: Number(m[2]), line: Number(m[3]) }
  }
  return [level('D1'), level('LL')]
}
const levels = cachegrindLevels()
const flags = (ls) => ls.flatMap((l) => ['--cache', `${l.name}:${l.size}:${l.assoc}:${l.line}`])
const whatIf = [{ ...levels[0], size: levels[0].size / 2 }, levels[1]]

const examples = JSON.parse(readFileSync(join(root, 'resources', 'examples', 'examples.json'), 'utf8'))
  .filter((e) => e.name !== 'spin')
  .map((e) => ({ name: e.name, program: join(root, 'resources', 'examples', 'build', e.name), args: e.args ?? [], cwd: work, functions: e.functions.join(',') }))
const wantedCorpus = wanted.size === 0 || [...wanted].some((w) => !examples.some((e) => e.name === w))
const corpus = wantedCorpus ? prepareCorpus(corpusDir(), (line) => console.error(line)) : []
const cases = [
  ...examples.map((p) => ({ p, scope: p.functions, functions: p.functions })),
  ...corpus.flatMap((p) => [{ p, scope: 'whole', functions: null }, ...(p.functions ? [{ p, scope: p.functions, functions: p.functions }] : [])])
].filter((c) => wanted.size === 0 || wanted.has(c.p.name))

/** Misses per data structure and level name, as each view gives them (unknown is spelled one way). */
const key = (name) => (name === '(unknown)' ? 'unknown' : name)
/** A name as the query's JSON lists it: quoted where it is not a plain word (`"s->prev"`). */
const unquoted = (name) => (name.length > 1 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name)
function byReport(session, run) {
  const out = new Map()
  for (const v of json(['report', session, '--run', String(run), '--by', 'variable']).variables) for (const [l, s] of Object.entries(v.levels)) out.set(`${key(v.variable)} @${l}`, s.misses)
  return out
}
function byObjects(session, run) {
  const out = new Map()
  for (const l of levels) for (const o of json(['objects', session, '--run', String(run), '--level', l.name, '--method', 'exact']).objects) if (o.misses > 0) out.set(`${key(o.name)} @${l.name}`, o.misses)
  return out
}
function byQuery(session, run) {
  const q = json(['query', session, `[{*},{*},{${levels.map((l) => `${l.name}.misses`).join(',')}}]`, '--run', String(run)])
  const out = new Map()
  q.data.forEach((name, i) => levels.forEach((l, k) => out.set(`${key(unquoted(name))} @${l.name}`, q.byData[i][k])))
  return out
}
function byCompare(session, before, after) {
  const d = json(['report', session, '--run', String(after), '--against', String(before), '--all'])
  const b = new Map()
  const a = new Map()
  for (const v of d.variables)
    for (const [l, s] of Object.entries(v.levels)) {
      b.set(`${key(v.key)} @${l}`, s.before)
      a.set(`${key(v.key)} @${l}`, s.after)
    }
  return [b, a]
}

/** Differences of `view` against `truth` (zeros on either side count as absent). */
function differ(truth, view) {
  const out = []
  for (const k of new Set([...truth.keys(), ...view.keys()])) {
    const t = truth.get(k) ?? 0
    const v = view.get(k) ?? 0
    if (t !== v) out.push(`${k}: ${v} (exact ${t})`)
  }
  return out
}

/** A report without what differs between two sessions of one trace by design (the run's time). */
const comparable = (text) => text.replace(/"createdAt": "[^"]*"/g, '')

/** The first line where two texts differ, both versions. */
function firstDifference(a, b) {
  const x = a.split('\n')
  const y = b.split('\n')
  const i = x.findIndex((line, k) => line !== y[k])
  return `line ${i + 1}: ${x[i]?.trim()} / ${y[i]?.trim()}`
}

let failures = 0
for (const c of cases) {
  const sessions = [0, 1].map((i) => join(work, `${c.p.name}-${c.scope.replace(/\W+/g, '_')}-${i}.stride`))
  // The first trace with a cache of its own, empty (what it reads of the program and the system
  // libraries is read afresh: gdb, the symbolizer, the start-up points), the second with it filled.
  const cache = { STRIDE_CACHE: join(work, `cache-${c.p.name}-${c.scope.replace(/\W+/g, '_')}`) }
  const trace = (out) => run(['trace', ...(c.functions ? ['--functions', c.functions] : []), '--out', out, '--force', ...flags(levels), '--launch', c.p.program, '--', ...c.p.args], c.p.cwd, cache)
  const problems = []
  const notes = []
  try {
    for (const s of sessions) trace(s)
    const [s] = sessions
    run(['simulate', s, ...flags(whatIf)]) // run 2: the what-if
    run(['simulate', s, ...flags(levels)]) // run 3: run 1's hierarchy again
    // A function's run 1 is warmed by the whole program; what-ifs replay the function alone
    // (cold): the same simulation twice is then runs 3 and 4.
    const [once, twice] = c.functions ? [3, 4] : [1, 3]
    if (c.functions) run(['simulate', s, ...flags(levels)]) // run 4
    const exact1 = byObjects(s, 1)
    const exact2 = byObjects(s, 2)
    const [before, after] = byCompare(s, 1, 2)
    const checks = [
      ['report', exact1, byReport(s, 1)],
      ['query', exact1, byQuery(s, 1)],
      ['compare before', exact1, before],
      ['what-if report', exact2, byReport(s, 2)],
      ['what-if query', exact2, byQuery(s, 2)],
      ['compare after', exact2, after]
    ]
    for (const [view, truth, got] of checks) for (const d of differ(truth, got).slice(0, 5)) problems.push(`${view}: ${d}`)
    // Whether the program ran the same way twice: its access points and their access counts.
    const recorded = sessions.map((x) => json(['info', x]).points.map((p) => `${p.pc} ${p.kind} ${p.accesses}`).join('\n'))
    const ranAlike = recorded[0] === recorded[1]
    for (const by of ['reference', 'variable']) {
      const one = comparable(run(['report', sessions[0], '--run', '1', '--by', by, '--all', '--json']))
      const two = comparable(run(['report', sessions[1], '--run', '1', '--by', by, '--all', '--json']))
      // A program that did not run the same accesses twice (it reads the clock, seeds a hash
      // with the time) is said to, and not counted against Stride.
      if (one !== two && !ranAlike) notes.push(`two traces: the program itself ran differently (${firstDifference(recorded[0], recorded[1])}), so its reports by ${by} differ`)
      else if (one !== two) problems.push(`two traces: the reports by ${by} differ, first at ${firstDifference(one, two)}`)
      const first = once === 1 ? one : comparable(run(['report', s, '--run', String(once), '--by', by, '--all', '--json'])).replace(`"run": ${once}`, '"run": 1')
      if (comparable(run(['report', s, '--run', String(twice), '--by', by, '--all', '--json'])).replace(`"run": ${twice}`, '"run": 1') !== first) problems.push(`one trace simulated twice: the reports by ${by} differ`)
    }
    const objects = [...exact1.values()].reduce((a, n) => a + n, 0)
    console.log(`${c.p.name.padEnd(10)} ${c.scope.slice(0, 34).padEnd(34)} ${String(exact1.size).padStart(5)} structure x level cells, ${objects} misses: ${problems.length > 0 ? `${problems.length} differences` : `equal in every view; ${notes.length === 0 ? 'two traces equal' : 'the program ran differently twice'}`}`)
  } catch (e) {
    problems.push(e.message)
    console.log(`${c.p.name.padEnd(10)} ${c.scope.slice(0, 34).padEnd(34)} failed`)
  }
  for (const p of [...problems, ...notes]) console.log(`    ${p}`)
  if (problems.length > 0) failures++
}
rmSync(work, { recursive: true, force: true })
process.exit(failures > 0 ? 1 : 0)
