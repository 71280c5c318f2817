#!/usr/bin/env node
// Recording cost, side by side in one run, medians of R runs each:
//   native      the program alone
//   null        valgrind --tool=none (Valgrind's floor: translation without instrumentation)
//   cachegrind  valgrind --tool=cachegrind (what a Stride user would otherwise run)
//   lackey      valgrind --tool=lackey --trace-mem=yes into /dev/null (the old backend's floor;
//               one run; skipped above 20 M accesses, it takes minutes)
//   stride      `stride trace --launch` on Stride's Valgrind tool: whole program, to a session
//               (system libraries' symbols, and what gdb read of this build's variables, kept
//               from the runs before, as on a user's machine re-tracing a program)
//   cold        the same once with none kept (the first trace on a machine, or of a new build)
//   pipe        `stride trace` with the records through a pipe (STRIDE_RECORD_TRANSPORT=pipe), as
//               before the shared ring (record-ring.ts); `stride` runs with the value `ring`, the
//               default, so both programs see environments of one size
// Programs: four examples, the heat stencil at two sizes, and a C++ program of standard
// containers (bench/targets/containers.cpp). And, for the heat stencil: `--functions step` (one small function) and `--max-events 1000000`
// (records a million accesses, then detaches) against the Null tool. Peak RSS of `stride trace`
// is printed for each program (flat memory: it must not grow with the trace).
// Usage: npm run build && npm run examples && node bench/trace.mjs [R]
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const root = join(import.meta.dirname, '..')
// The `stride` command as a user runs it (bin/stride.js: Node started without NODE_EXTRA_CA_CERTS).
const stride = join(root, 'bin', 'stride.js')
const R = Number(process.argv[2] ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-trace-'))
const env = { ...process.env, STRIDE_HOME: join(dir, 'home') }

const heat = join(dir, 'heat')
const cc = spawnSync('cc', ['-O2', '-g', '-o', heat, join(root, 'bench', 'targets', 'heat.c')], { encoding: 'utf8' })
if (cc.status !== 0) throw new Error(`cannot build bench/targets/heat.c: ${cc.stderr}`)
// C++ as Debian builds it (g++ -O2 -g, PIE): standard containers on the heap, libstdc++'s debug info.
const containers = join(dir, 'containers')
const cxx = spawnSync('g++', ['-O2', '-g', '-o', containers, join(root, 'bench', 'targets', 'containers.cpp')], { encoding: 'utf8' })
if (cxx.status !== 0) throw new Error(`cannot build bench/targets/containers.cpp: ${cxx.stderr}`)

// The recording engine alone: Stride's Valgrind tool exactly as Stride starts it, records to /dev/null.
async function loadToolBuild() {
  const { build } = await import('rolldown')
  // CommonJS inside the project, so the module finds the project root from its own folder.
  const file = join(root, 'out', 'bench', 'tool-build.cjs')
  await build({ input: join(root, 'src', 'main', 'tracing', 'valgrind', 'tool-build.ts'), output: { file, format: 'cjs' }, platform: 'node', logLevel: 'silent' })
  return createRequire(import.meta.url)(file)
}
const { strideValgrindTool, toolCommand } = await loadToolBuild()
const built = strideValgrindTool()
if (!built.ok) console.log(`Stride's Valgrind tool is not built here (${built.reason}): Stride records with Lackey`)
const devNull = openSync('/dev/null', 'w')
function toolAlone(p, options, times = R) {
  if (!built.ok) return null
  const c = toolCommand(built.tool, ['--tool=stride', '--out-fd=9', '--log-fd=2', '--demangle=no', `--exe=${p.program}`, ...options, p.program, ...p.args])
  // Records to fd 9 (/dev/null), with the environment the tool gets from Stride.
  return measure(c.command, c.args, times, { env: { ...env, ...built.tool.env }, fd9: devNull })
}

const example = (name) => ({ name, program: join(root, 'resources', 'examples', 'build', name), args: [] })
const programs = [
  example('conflict'),
  example('reuse'),
  example('micro'),
  example('mult'),
  { name: 'heat 512 12', program: heat, args: ['512', '12'] },
  { name: 'containers', program: containers, args: [] },
  { name: 'heat 1024 10', program: heat, args: ['1024', '10'] }
]

/** Wall seconds and peak RSS (KiB) of one run, through /usr/bin/time (its figures are stderr's last line). */
function once(cmd, args, { env: runEnv = env, fd9 = null } = {}) {
  const stdio = ['ignore', fd9 === null ? 'pipe' : 'ignore', 'pipe', ...(fd9 === null ? [] : ['ignore', 'ignore', 'ignore', 'ignore', 'ignore', 'ignore', fd9])]
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...args], { env: runEnv, encoding: 'utf8', maxBuffer: 256 << 20, stdio })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`)
  const [s, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { s, kb, out: r.stdout ?? '' }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

function measure(cmd, args, times = R, options = {}) {
  const runs = Array.from({ length: times }, () => once(cmd, args, options))
  return { s: median(runs.map((r) => r.s)), kb: Math.max(...runs.map((r) => r.kb)), out: runs[0].out }
}

/** An empty cache folder sharing the built Valgrind tool: no system library's symbols, no program's variables kept (src/main/paths.ts cacheDir()). */
function coldEnv() {
  const cache = join(dir, `cache-${Math.random().toString(36).slice(2)}`)
  mkdirSync(cache)
  symlinkSync(join(process.env.STRIDE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'stride'), 'valgrind-tool'), join(cache, 'valgrind-tool'))
  return { ...env, STRIDE_CACHE: cache }
}

const valgrind = (tool, extra, p, times = R) => measure('sh', ['-c', `valgrind --tool=${tool} ${extra} ${p.program} ${p.args.join(' ')} >/dev/null 2>&1 9>/dev/null`], times)

console.log(`R = ${R} runs each, medians; peak RSS is the largest of the runs`)
console.log('program          accesses  native s  null s  cachegrind s  lackey s  tool s  stride s  cold s  pipe s  tool/cachegrind  stride/cachegrind  cold/cachegrind  pipe/stride  stride peak MB')
for (const p of programs) {
  const native = measure(p.program, p.args)
  const none = valgrind('none', '', p)
  const cg = valgrind('cachegrind', '--cachegrind-out-file=/dev/null', p)
  const traceArgs = ['trace', '--launch', p.program, '--no-heap', '--out', join(dir, 's.stride'), '--force', '--', ...p.args]
  const cold = once(stride, traceArgs, { env: coldEnv() })
  const traced = measure(stride, traceArgs, R, { env: { ...env, STRIDE_RECORD_TRANSPORT: 'ring' } })
  const piped = measure(stride, traceArgs, R, { env: { ...env, STRIDE_RECORD_TRANSPORT: 'pipe' } })
  const accesses = Number(/^(\d+) events/m.exec(traced.out)?.[1] ?? 0)
  const tool = toolAlone(p, ['--frames=no'])
  // Lackey once: it is the old backend's floor, and slow.
  const lackey = accesses <= 20e6 ? valgrind('lackey', '--trace-mem=yes --log-fd=9', p, 1).s.toFixed(2) : '-'
  console.log(
    [
      p.name.padEnd(14),
      String(accesses).padStart(10),
      native.s.toFixed(2).padStart(9),
      none.s.toFixed(2).padStart(7),
      cg.s.toFixed(2).padStart(13),
      lackey.padStart(9),
      (tool ? tool.s.toFixed(2) : '-').padStart(7),
      traced.s.toFixed(2).padStart(9),
      cold.s.toFixed(2).padStart(7),
      piped.s.toFixed(2).padStart(7),
      (tool ? (tool.s / cg.s).toFixed(2) : '-').padStart(16),
      (traced.s / cg.s).toFixed(2).padStart(18),
      (cold.s / cg.s).toFixed(2).padStart(16),
      (piped.s / traced.s).toFixed(2).padStart(12),
      (traced.kb / 1024).toFixed(0).padStart(15)
    ].join(' ')
  )
}

console.log('\nheat 1024 10 against the Null tool: one small function (corner: 2 accesses), and detach after a million accesses')
const big = programs[programs.length - 1]
const none = valgrind('none', '', big)
for (const [label, extra, toolOptions] of [
  ['--functions corner', ['--functions', 'corner'], ['--frames=no', '--fn=corner']],
  ['--max-events 1000000 (detach)', ['--max-events', '1000000'], ['--frames=no', '--max-events=1000000']]
]) {
  const r = measure(stride, ['trace', '--launch', big.program, '--no-heap', ...extra, '--out', join(dir, 'f.stride'), '--force', '--', ...big.args])
  const tool = toolAlone(big, toolOptions)
  const accesses = Number(/^(\d+) events/m.exec(r.out)?.[1] ?? 0)
  console.log(
    `${label.padEnd(32)} ${String(accesses).padStart(8)} accesses  null ${none.s.toFixed(2)} s  tool ${tool ? tool.s.toFixed(2) : '-'} s (${tool ? (tool.s / none.s).toFixed(2) : '-'}x null)  stride trace ${r.s.toFixed(2)} s (${(r.s / none.s).toFixed(2)}x null)`
  )
}
console.log('\nstride trace with no work: node start-up, ELF and debug info, symbols, session file')
const tiny = measure(stride, ['trace', '--launch', big.program, '--no-heap', '--functions', 'corner', '--out', join(dir, 't.stride'), '--force', '--', '16', '1'])
console.log(`heat 16 1 --functions corner: ${tiny.s.toFixed(2)} s`)
rmSync(dir, { recursive: true, force: true })
