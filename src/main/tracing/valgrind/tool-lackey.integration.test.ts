/**
 * Lackey is the oracle for Stride's Valgrind tool: on the examples, the tool's records (pc,
 * kind, address, size, in order) equal Lackey's `--trace-mem=yes` lines, whole program and
 * for one chosen function. Both run through the same launcher with the same environment.
 * The only addresses allowed to differ are those of instructions whose addresses Lackey itself
 * does not repeat between two runs (ld.so's strcspn reads a table on the stack indexed by random
 * bytes).
 */
import { spawnSync } from 'node:child_process'
import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { example, fixedEnv, tempDir } from '../../testing/cli-runner'
import { readElf } from '../../symbols/elf-reader'
import { parseMaps } from '../proc-maps'
import { strideValgrindTool, toolCommand, type StrideTool } from './tool-build'
import { ToolStreamReader } from './tool-stream'
import { sinkWith } from '../../testing/tool-stream'

const dir = tempDir('tool-lackey')
// One small fixed environment for the tool's and Lackey's runs: the program's loader reads
// its environment (LD_* paths are split with strcspn on the stack), so whatever the test
// runner's environment holds must not reach one run and not the other.
const env = fixedEnv(dir)
const KINDS = 'LSM'

/** Records as parallel arrays: cheap to hold a few million. */
class Trace {
  pcs: number[] = []
  kinds: number[] = []
  addresses: number[] = []
  sizes: number[] = []
  add(pc: number, kind: number, address: number, size: number): void {
    this.pcs.push(pc)
    this.kinds.push(kind)
    this.addresses.push(address)
    this.sizes.push(size)
  }
  get length(): number {
    return this.pcs.length
  }
  same(i: number, o: Trace, j = i): boolean {
    return this.pcs[i] === o.pcs[j] && this.kinds[i] === o.kinds[j] && this.addresses[i] === o.addresses[j] && this.sizes[i] === o.sizes[j]
  }
  show(i: number): string {
    return `${KINDS[this.kinds[i]!]} ${this.addresses[i]?.toString(16)},${this.sizes[i]} at pc ${this.pcs[i]?.toString(16)}`
  }
}

let tool: StrideTool

function toFile(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): string {
  const file = join(dir, name)
  const fd = openSync(file, 'w')
  try {
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe', fd], env, encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
  } finally {
    closeSync(fd)
  }
  return file
}

function runTool(program: string, options: string[] = []): { trace: Trace; maps: string } {
  const start = toolCommand(tool, ['--tool=stride', '--out-fd=3', '--demangle=no', '--frames=no', ...options, program])
  const bytes = readFileSync(toFile('tool.bin', start.command, start.args, { ...env, ...tool.env }))
  const trace = new Trace()
  const points: Array<[number, number]> = []
  let maps = ''
  const sink = sinkWith({
    point: (pc, kind) => points.push([pc, kind]),
    access: (point, address, size) => trace.add(points[point]![0], points[point]![1], address, size),
    maps: (text) => (maps += text)
  })
  new ToolStreamReader(sink).push(bytes)
  return { trace, maps }
}

function runLackey(program: string, name: string): Trace {
  // The launcher sets VALGRIND_LAUNCHER itself (a second binding would reach the program).
  const file = toFile(name, 'valgrind', ['--tool=lackey', '--trace-mem=yes', '--log-fd=3', program], env)
  const trace = new Trace()
  let pc = 0
  // Read in blocks: a few million lines do not fit in one string.
  const fd = openSync(file, 'r')
  const block = Buffer.alloc(1 << 24)
  let rest = ''
  try {
    for (;;) {
      const n = readSync(fd, block, 0, block.length, null)
      const lines = (rest + block.toString('latin1', 0, n)).split('\n')
      rest = n === 0 ? '' : lines.pop()!
      for (const line of lines) {
        if (line.startsWith('I ')) pc = parseInt(line.slice(2), 16)
        else if (line.length > 3 && line[0] === ' ' && 'LSM'.includes(line[1]!)) {
          const [a, s] = line.slice(3).split(',')
          trace.add(pc, KINDS.indexOf(line[1]!), parseInt(a!, 16), Number(s))
        }
      }
      if (n === 0) break
    }
  } finally {
    closeSync(fd)
  }
  return trace
}

/**
 * Every record of `ours` equals Lackey's. An instruction whose address Lackey itself does not
 * repeat between two runs (ld.so's strcspn indexes a table on the stack by random
 * bytes near the stack's top; its unrolled loop reads them at up to four pcs) is compared by pc, kind and size only, at each of its records: a record
 * where both Lackey runs drew the same random byte by chance (1 in 256) says nothing about ours.
 * Nor does a pc read once whose two Lackey runs drew the same byte (it happened in CI): an
 * instruction whose address our own two runs (`oursAgain`) do not repeat is random too, so only
 * a pc where both pairs drew alike by chance (1 in 65,536) is compared by address.
 */
function expectLackey(ours: Trace, lackey: Trace, again: Trace, oursAgain: Trace | null = null): void {
  expect(lackey.length).toBe(again.length)
  expect(ours.length).toBe(lackey.length)
  const randomPcs = new Set<number>()
  let unstable = 0
  for (let i = 0; i < lackey.length; i++) {
    if (lackey.same(i, again)) continue
    unstable++
    randomPcs.add(lackey.pcs[i]!)
  }
  if (oursAgain) {
    expect(oursAgain.length).toBe(ours.length)
    for (let i = 0; i < ours.length; i++) if (!ours.same(i, oursAgain)) randomPcs.add(ours.pcs[i]!)
  }
  for (let i = 0; i < lackey.length; i++) {
    if (randomPcs.has(lackey.pcs[i]!)) {
      const shape = (t: Trace) => `record ${i}: ${KINDS[t.kinds[i]!]} size ${t.sizes[i]} at pc ${t.pcs[i]?.toString(16)}`
      if (ours.pcs[i] !== lackey.pcs[i] || ours.kinds[i] !== lackey.kinds[i] || ours.sizes[i] !== lackey.sizes[i]) expect(shape(ours)).toBe(shape(lackey))
      continue
    }
    if (!ours.same(i, lackey)) expect(`record ${i}: ${ours.show(i)}`).toBe(`record ${i}: ${lackey.show(i)}`)
  }
  expect(unstable).toBeLessThan(Math.max(16, lackey.length / 10000))
  expect(randomPcs.size).toBeLessThan(8)
}

beforeAll(() => {
  const built = strideValgrindTool()
  if (!built.ok) throw new Error(`Stride's Valgrind tool did not build: ${built.reason}`)
  tool = built.tool
})

describe("Stride's Valgrind tool equals Lackey", () => {
  it.each(['conflict', 'micro', 'reuse', 'loop_index'])('%s, whole program: the same records in the same order', (name) => {
    const program = example(name)
    const { trace } = runTool(program)
    expectLackey(trace, runLackey(program, 'lk1.txt'), runLackey(program, 'lk2.txt'), runTool(program).trace)
  })

  it('reuse, --fn do_mult: exactly Lackey\'s records whose instruction is in do_mult', async () => {
    const program = example('reuse')
    const { trace, maps } = runTool(program, ['--fn=do_mult', `--exe=${program}`])
    const elf = await readElf(program)
    const f = elf.functions.find((s) => s.name === 'do_mult')!
    const exe = parseMaps(maps).filter((m) => m.path === program)
    const base = elf.relocatable ? Math.min(...exe.map((m) => m.start - m.offset)) : 0
    const inside = (pc: number) => pc >= f.start + base && pc < f.start + f.size + base
    const filter = (t: Trace) => {
      const out = new Trace()
      for (let i = 0; i < t.length; i++) if (inside(t.pcs[i]!)) out.add(t.pcs[i]!, t.kinds[i]!, t.addresses[i]!, t.sizes[i]!)
      return out
    }
    expect(trace.length).toBeGreaterThan(50_000)
    expectLackey(trace, filter(runLackey(program, 'lk1.txt')), filter(runLackey(program, 'lk2.txt')))
  })
})
