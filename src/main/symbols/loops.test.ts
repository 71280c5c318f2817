import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LoopIndex, parseLoops, type Loop } from './loops'

const DO_MULT = `0000000000001139 <do_mult>:
    1139:	lea    0x7a4100(%rip),%rsi        # 7a5240 <A>
    114e:	lea    -0x7a1200(%rcx),%rdx
    1155:	mov    %rsi,%rax
    1158:	movsd  (%rax),%xmm0
    115c:	mulsd  (%rdx),%xmm0
    1160:	movsd  %xmm0,(%rax)
    1172:	jne    1158 <do_mult+0x1f>
    1174:	add    $0x1f40,%rsi
    117f:	cmp    %rdi,%rcx
    1182:	jne    114e <do_mult+0x15>
    1184:	ret

0000000000001190 <main>:
    1190:	sub    $0x8,%rsp
    1194:	call   1139 <do_mult>
    1199:	jmp    11a4 <main+0x14>
    11a4:	ret
`

describe('loop nests from back edges', () => {
  it('finds nested loops and the innermost loop of an instruction', () => {
    const loops = parseLoops(DO_MULT)
    expect(loops).toEqual([
      { start: 0x114e, end: 0x1182, function: 'do_mult', depth: 0, parent: -1 },
      { start: 0x1158, end: 0x1172, function: 'do_mult', depth: 1, parent: 0 }
    ])
    const index = new LoopIndex(loops)
    expect(index.innermost(0x115c)).toBe(1)
    expect(index.innermost(0x1174)).toBe(0)
    expect(index.innermost(0x1194)).toBe(-1) // calls and forward jumps are not loops
  })

  it('finds exactly the loops a pass over all of them finds, overlapping and out of order', () => {
    const loopArb = fc.record({ start: fc.integer({ min: 0, max: 200 }), length: fc.integer({ min: 0, max: 120 }), depth: fc.integer({ min: 0, max: 3 }) })
    fc.assert(
      fc.property(fc.array(loopArb, { maxLength: 40 }), fc.array(fc.integer({ min: -5, max: 330 }), { minLength: 1, maxLength: 30 }), (shapes, addresses) => {
        const loops: Loop[] = shapes.map((s) => ({ start: s.start, end: s.start + s.length, function: 'f', depth: s.depth, parent: -1 }))
        const index = new LoopIndex(loops)
        for (const a of addresses) {
          const all = loops.flatMap((l, i) => (a >= l.start && a <= l.end ? [i] : []))
          expect(index.containing(a)).toEqual(all)
          const deepest = all.reduce((best, i) => (best < 0 || loops[i]!.depth > loops[best]!.depth ? i : best), -1)
          expect(index.innermost(a)).toBe(deepest)
        }
      }),
      { numRuns: 300 }
    )
  })

  it('a backward jump to a shared epilogue is not a loop (cc -O1 sumfunc)', () => {
    const sumfunc = `0000000000001139 <sumfunc>:
    1139:	test   %ecx,%ecx
    113b:	jle    116e <sumfunc+0x35>
    113d:	movslq %ecx,%rcx
    1149:	pxor   %xmm1,%xmm1
    114d:	movsd  (%rdi,%rax,1),%xmm0
    1152:	addsd  (%rsi,%rax,1),%xmm0
    1160:	add    $0x8,%rax
    1164:	cmp    %rcx,%rax
    1167:	jne    114d <sumfunc+0x14>
    1169:	movapd %xmm1,%xmm0
    116d:	ret
    116e:	pxor   %xmm1,%xmm1
    1172:	jmp    1169 <sumfunc+0x30>
`
    expect(parseLoops(sumfunc)).toEqual([{ start: 0x114d, end: 0x1167, function: 'sumfunc', depth: 0, parent: -1 }])
  })

  it('a rotated loop entered at its condition is still a loop', () => {
    const rotated = `0000000000001200 <walk>:
    1200:	jmp    1210 <walk+0x10>
    1202:	mov    (%rdi),%rdi
    1205:	add    $0x1,%eax
    1210:	test   %rdi,%rdi
    1213:	jne    1202 <walk+0x2>
    1215:	ret
`
    expect(parseLoops(rotated)).toEqual([{ start: 0x1202, end: 0x1213, function: 'walk', depth: 0, parent: -1 }])
  })
})

