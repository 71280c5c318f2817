/**
 * The CModule's effective-address and ring code, compiled natively (gcc + Debian's capstone,
 * the minimal CPU context of stride-cmodule.h) and run on real instructions: every memory
 * instruction of the example binaries, and fixtures/operands.c for the forms -O1 examples
 * lack. The oracle is objdump (GNU binutils, not capstone): its Intel-syntax operand text
 * gives base, index, scale, displacement, segment and size, and its "# ADDR" comment the
 * rip-relative target; addresses are recomputed here from known register values.
 * Everything runs twice: built by gcc, and by TinyCC (the compiler CModule embeds) where
 * the tcc package is installed, so C that TinyCC rejects or miscompiles fails here first.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RECORD, RECORD_BYTES, STATE, STATE_BYTES } from '../protocol'

const HERE = __dirname
const EXAMPLES = join(HERE, '..', '..', '..', 'resources', 'examples', 'build')
const M64 = (1n << 64n) - 1n
const LIBC = '/lib/x86_64-linux-gnu/libc.so.6'

const REGS: Record<string, bigint> = {
  rax: 0x1100n, rbx: 0x22000n, rcx: 3n, rdx: 0x330n, rsi: 0x4400000n, rdi: 0x55000000n,
  rbp: 0x7ffe0000n, rsp: 0x7ffd0000n, r8: 0x80000n, r9: 0x90000n, r10: 0xa0000n, r11: 0xb0000n,
  r12: 0xc0000n, r13: 0xd0000n, r14: 0xe0000n, r15: 0xf0000n
}
const REG32: Record<string, string> = {
  eax: 'rax', ebx: 'rbx', ecx: 'rcx', edx: 'rdx', esi: 'rsi', edi: 'rdi', ebp: 'rbp', esp: 'rsp',
  r8d: 'r8', r9d: 'r9', r10d: 'r10', r11d: 'r11', r12d: 'r12', r13d: 'r13', r14d: 'r14', r15d: 'r15'
}
const SIZES: Record<string, number> = { BYTE: 1, WORD: 2, DWORD: 4, QWORD: 8, XMMWORD: 16, YMMWORD: 32, ZMMWORD: 64 }
const KIND = { read: 0, write: 1, modify: 2 }

interface Insn {
  address: bigint
  bytes: string
  mnemonic: string
  operands: string
  comment: string | null
  binary: string
}
interface Rec { type: number; kind: number; size: number; pc: string; address: string }
interface Planned { address: string; mnemonic: string; opStr: string; mode: number; untraced: number; records: Rec[] }

let fixture = ''
let fsBase = 0n
const HAVE_TCC = spawnSync('tcc', ['-v']).status === 0

function sh(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, maxBuffer: 512 * 1024 * 1024 })
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

function disassemble(binary: string): Insn[] {
  const out: Insn[] = []
  for (const line of sh('objdump', ['-d', '-M', 'intel', '-w', '--section=.text', binary]).split('\n')) {
    const m = /^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(\S+)\s*([^#]*?)\s*(?:#\s*([0-9a-f]+).*)?$/.exec(line)
    if (!m) continue
    out.push({ address: BigInt(`0x${m[1]}`), bytes: m[2]!.replace(/ /g, ''), mnemonic: m[3]!, operands: m[4]!, comment: m[5] ?? null, binary })
  }
  return out
}

function runHarness(harness: string, insns: Insn[]): Planned[] {
  const regs = `regs ${Object.entries(REGS).map(([k, v]) => `${k}=0x${v.toString(16)}`).join(' ')}\n`
  const text = sh(harness, [], regs + insns.map((i) => `${i.address.toString(16)} ${i.bytes}\n`).join(''))
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
  fsBase = BigInt(lines[0]!.fsBase as string)
  return lines.slice(1, -1) as unknown as Planned[]
}

/** objdump's memory operand: size, segment and the address from known registers. */
function oracle(insn: Insn): { size: number; address: bigint; position: number } | null {
  const ops = splitOperands(insn.operands)
  const found = ops.map((o, i) => ({ o, i })).filter(({ o }) => /PTR/.test(o))
  if (found.length !== 1) return null
  const { o, i } = found[0]!
  const m = /^(\w+) PTR (?:(\w\w):)?(?:\[([^\]]+)\]|(0x[0-9a-f]+))$/.exec(o)
  if (!m) return null
  const size = SIZES[m[1]!]
  if (size === undefined) return null
  let address = 0n
  if (m[4]) address = BigInt(m[4])
  else {
    const expr = m[3]!
    if (/\brip\b/.test(expr)) {
      if (!insn.comment) return null
      address = BigInt(`0x${insn.comment}`)
    } else {
      for (const term of expr.match(/[+-]?[^+-]+/g)!) {
        const sign = term.startsWith('-') ? -1n : 1n
        const t = term.replace(/^[+-]/, '')
        const [reg, scale] = t.split('*')
        const r = REGS[reg!] ?? (REG32[reg!] ? REGS[REG32[reg!]!]! & 0xffffffffn : undefined)
        if (r !== undefined) address += sign * r * BigInt(scale ?? 1)
        else if (/^0x[0-9a-f]+$/.test(t)) address += sign * BigInt(t)
        else return null // a vector index (gather): checked separately
      }
    }
  }
  if (m[2] === 'fs') address += fsBase
  else if (m[2] && m[2] !== 'ds' && m[2] !== 'es' && m[2] !== 'cs' && m[2] !== 'ss') return null
  return { size, address: address & M64, position: i }
}

function splitOperands(s: string): string[] {
  const out: string[] = []
  let depth = 0
  let cur = ''
  for (const c of s) {
    if (c === '[') depth++
    if (c === ']') depth--
    if (c === ',' && depth === 0) {
      out.push(cur.trim())
      cur = ''
    } else cur += c
  }
  if (cur.trim()) out.push(cur.trim())
  return out
}

const IMPLICIT = /^(lea|nop|push|pop|call|ret|leave|bnd|prefetch|rep|repz|repnz|movs|stos|lods|cmps|scas|vgather|vpgather|xsave|xrstor|fxsave|fxrstor)/

const dir = mkdtempSync(join(tmpdir(), 'stride-cmodule-'))
beforeAll(() => {
  fixture = join(dir, 'operands')
  sh('gcc', ['-O2', '-mavx2', '-o', fixture, join(HERE, 'fixtures', 'operands.c')])
})

const COMPILERS = [
  { cc: 'gcc', flags: ['-O1', '-Wall', '-Werror'], available: true },
  { cc: 'tcc', flags: [], available: HAVE_TCC }
]

for (const { cc, flags, available } of COMPILERS)
describe.skipIf(!available)(`effective addresses (the CModule source built by ${cc}${available ? '' : '; skipped: tcc is not installed (apt-get install tcc)'})`, () => {
  const harness = join(dir, `harness-${cc}`)
  beforeAll(() => {
    sh(cc, [...flags, '-o', harness, join(HERE, 'fixtures', 'harness.c'), '-lcapstone'])
  })

  it('the whole CModule source, Stalker transform included, compiles', () => {
    sh(cc, [...flags, '-c', '-o', join(dir, `transform-${cc}.o`), join(HERE, 'fixtures', 'transform-check.c')])
  })

  it('matches objdump on every explicit memory operand of the example binaries and the fixture', () => {
    expect(existsSync(EXAMPLES), 'run "npm run examples" first').toBe(true)
    // The C library too: tens of thousands of real compiler- and hand-written forms.
    const binaries = readdirSync(EXAMPLES).map((f) => join(EXAMPLES, f)).concat(fixture, ...[LIBC].filter(existsSync))
    const insns = binaries.flatMap(disassemble)
    const planned = runHarness(harness, insns)
    expect(planned).toHaveLength(insns.length)
    let checked = 0
    let untraced = 0
    const sizes = new Set<number>()
    const kinds = new Set<number>()
    const problems: string[] = []
    insns.forEach((insn, n) => {
      const p = planned[n]!
      if (IMPLICIT.test(insn.mnemonic)) return
      const o = oracle(insn)
      if (!o) return
      const where = `${insn.binary.split('/').pop()} ${insn.address.toString(16)}: ${insn.mnemonic} ${insn.operands}`
      if (!p.records) return // Debian's capstone 4 cannot decode it (Frida ships a newer one)
      // Operands capstone 4 cannot size or index (some AVX-512 EVEX forms) are counted untraced, not guessed.
      if (p.mode === 3) return void untraced++
      if (p.records.length !== 1) return void problems.push(`${where}: ${p.records.length} records`)
      const r = p.records[0]!
      if (BigInt(r.address) !== o.address) problems.push(`${where}: address ${r.address}, objdump says 0x${o.address.toString(16)}`)
      if (r.size !== o.size) problems.push(`${where}: size ${r.size}, objdump says ${o.size}`)
      if (BigInt(r.pc) !== insn.address) problems.push(`${where}: pc ${r.pc}`)
      // Read/write where the operand position decides it: mov-family stores and loads, and
      // any instruction whose memory operand is a source.
      if (/^v?mov/.test(insn.mnemonic) && !/^v?movs[bwdq]?$/.test(insn.mnemonic)) {
        const want = o.position === 0 ? KIND.write : KIND.read
        if (r.kind !== want) problems.push(`${where}: kind ${r.kind}, want ${want}`)
      } else if (o.position > 0 && !/^(xchg|xadd|cmpxchg)/.test(insn.mnemonic)) {
        if (r.kind !== KIND.read) problems.push(`${where}: kind ${r.kind}, want read`)
      }
      sizes.add(r.size)
      kinds.add(r.kind)
      checked++
    })
    expect(problems.slice(0, 20), `${problems.length} mismatches`).toEqual([])
    expect(checked).toBeGreaterThan(70)
    expect(untraced / checked, `${untraced} of ${checked} operands untraced`).toBeLessThan(0.01)
    for (const s of [1, 2, 4, 8, 16, 32]) expect(sizes, `a ${s}-byte operand was checked`).toContain(s)
    expect([...kinds].sort()).toEqual([0, 1, 2])
  })

  const fixtureInsn = (fn: string, mnemonic: RegExp): [Insn, Planned] => {
    const text = sh('objdump', ['-d', '-M', 'intel', '-w', '--section=.text', fixture])
    const body = text.split(`<${fn}>:`)[1]!.split('\n\n')[0]!
    const line = body.split('\n').find((l) => mnemonic.test((l.split('\t')[2] ?? '').split(/\s+/)[0]!))
    expect(line, `${fn} has ${mnemonic}`).toBeDefined()
    const insn = disassemble(fixture).find((i) => i.address === BigInt(`0x${line!.trim().split(':')[0]}`))!
    return [insn, runHarness(harness, [insn])[0]!]
  }

  it('record and shared-state layouts are the ones the agent and the host decoder use', () => {
    const layout = JSON.parse(sh(harness, ['layout']))
    expect(layout).toEqual({ recordBytes: RECORD_BYTES, record: RECORD, stateBytes: STATE_BYTES, state: STATE })
  })

  it('reproduces the host decoder\'s recorded batch fixture byte for byte (thread keys aside)', () => {
    const fixtures = join(HERE, '..', '..', 'main', 'tracing', 'frida', 'fixtures')
    const out = join(dir, `batch-${cc}.bin`)
    const script = readFileSync(join(fixtures, 'sumfunc-batch.txt'), 'utf8').replace(/^batch .*$/m, `batch ${out}`)
    sh(harness, [], script)
    const masked = (b: Buffer) => {
      const c = Buffer.from(b)
      for (let o = 0; o < c.length; o += RECORD_BYTES) c.fill(0, o + RECORD.thread, o + RECORD.thread + 4)
      return c
    }
    expect(masked(readFileSync(out)).equals(masked(readFileSync(join(fixtures, 'sumfunc-batch.bin'))))).toBe(true)
  })

  it('rip-relative: the operand is the absolute address objdump resolves', () => {
    const [insn, p] = fixtureInsn('read_global', /^mov$/)
    expect(insn.operands).toMatch(/rip/)
    expect(BigInt(p.records[0]!.address)).toBe(BigInt(`0x${insn.comment}`))
  })

  it('fs-relative: negative offset from the thread pointer, as a read-modify-write', () => {
    const [insn, p] = fixtureInsn('bump_tls', /^add$/)
    expect(insn.operands).toMatch(/fs:0xfffffffffffffff8/)
    expect(p.records).toHaveLength(1)
    expect(BigInt(p.records[0]!.address)).toBe((fsBase - 8n) & M64)
    expect(p.records[0]!.kind).toBe(KIND.modify)
  })

  it('negative displacement and index x scale', () => {
    const [, neg] = fixtureInsn('negative_displacement', /^mov$/)
    expect(BigInt(neg.records[0]!.address)).toBe(REGS.rdi! - 0x18n)
    const [insn, idx] = fixtureInsn('indexed', /^add$/)
    expect(insn.operands).toBe('rax,QWORD PTR [rdi+rcx*8]')
    expect(BigInt(idx.records[0]!.address)).toBe(REGS.rdi! + REGS.rcx! * 8n)
  })

  it('lea and nop with memory operands record nothing', () => {
    const [, lea] = fixtureInsn('indexed', /^lea$/)
    expect(lea.mode).toBe(0)
    expect(lea.records).toEqual([])
    const [, nop] = fixtureInsn('bump_tls', /^nop$/)
    expect(nop.records).toEqual([])
  })

  it('16- and 32-byte vector loads and stores, stores as writes', () => {
    const [, load] = fixtureInsn('copy32', /^vmovupd$/)
    expect(load.records[0]).toMatchObject({ size: 32, kind: KIND.read })
    const [, store16] = fixtureInsn('copy16', /^vmovups$/)
    expect(store16.records[0]).toMatchObject({ size: 16 })
  })

  it('rep movs repeats read-then-write rcx times; rep stos writes rcx bytes', () => {
    const [, movs] = fixtureInsn('rep_copy', /^rep$/)
    expect(movs.records.map((r) => [r.kind, BigInt(r.address), r.size])).toEqual([
      [0, REGS.rsi!, 8], [1, REGS.rdi!, 8],
      [0, REGS.rsi! + 8n, 8], [1, REGS.rdi! + 8n, 8],
      [0, REGS.rsi! + 16n, 8], [1, REGS.rdi! + 16n, 8]
    ])
    const [, stos] = fixtureInsn('rep_fill', /^rep$/)
    expect(stos.records.map((r) => [r.kind, BigInt(r.address), r.size])).toEqual([0n, 1n, 2n].map((i) => [1, REGS.rdi! + i, 1]))
  })

  it('repe cmps and AVX2 gathers are counted untraced, with the reason', () => {
    const [, cmps] = fixtureInsn('rep_compare', /^repz$/)
    expect(cmps.mode).toBe(3)
    expect(cmps.records).toEqual([expect.objectContaining({ type: 7, kind: 2 })])
    const [, gather] = fixtureInsn('gather4', /^vgatherdpd$/)
    expect(gather.records).toEqual([expect.objectContaining({ type: 7, kind: 1 })])
  })

  it('push/call store at rsp-8, ret/pop load at rsp (the implicit stack accesses Valgrind also reports)', () => {
    const planned = runHarness(harness, [
      { address: 0x1000n, bytes: '55', mnemonic: 'push', operands: 'rbp', comment: null, binary: '' },
      { address: 0x1001n, bytes: 'c3', mnemonic: 'ret', operands: '', comment: null, binary: '' },
      { address: 0x1002n, bytes: 'e8f9ffffff', mnemonic: 'call', operands: '', comment: null, binary: '' },
      { address: 0x1007n, bytes: 'ff15f3ffffff', mnemonic: 'call', operands: 'QWORD PTR [rip-0xd]', comment: null, binary: '' }
    ])
    expect(planned.map((p) => p.records.map((r) => [r.kind, BigInt(r.address)]))).toEqual([
      [[1, REGS.rsp! - 8n]],
      [[0, REGS.rsp!]],
      [[1, REGS.rsp! - 8n]],
      [[0, 0x1007n + 6n - 0xdn], [1, REGS.rsp! - 8n]]
    ])
  })
})
