import { describe, expect, it } from 'vitest'
import { innermostLoop, parseLoops } from './loops'

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
    expect(innermostLoop(loops, 0x115c)).toBe(1)
    expect(innermostLoop(loops, 0x1174)).toBe(0)
    expect(innermostLoop(loops, 0x1194)).toBe(-1) // calls and forward jumps are not loops
  })
})
