import { describe, expect, it } from 'vitest'
import { Correlator, dominantVariable } from './correlator'

const READ = 0
const WRITE = 1

function layout() {
  return {
    globals: [{ name: 'G', start: 0x4000, size: 0x800 }],
    functions: [{ name: 'scale', start: 0x1100 }],
    variables: {
      globals: { G: { type: 'double [256]', size: 2048, elementSize: 8, dims: [256] } },
      frames: { scale: [{ name: 'local', offset: -528, size: 512, type: 'double [64]', elementSize: 8, dims: [64] }] }
    },
    relocatable: true
  }
}

describe('Correlator', () => {
  it('places globals and frame entries at the load base, and attributes by address', () => {
    const c = new Correlator(layout())
    expect(c.wantsInstructions).toBe(true)
    c.programLoaded(0x100000)
    expect(c.attribute(0, READ, 0x104008)).toBe(1) // G
    // call scale: the push of the return address, then scale's first instruction.
    const sp = 0x7ff000
    c.observe(WRITE, sp, 8)
    c.instruction(0x101100)
    const local = c.attribute(1, WRITE, sp + 8 - 528)
    expect(c.finish().variables[local]!.name).toBe('local')
    // ret reads the return address: the frame is gone.
    c.observe(READ, sp, 8)
    expect(c.attribute(1, WRITE, sp + 8 - 528)).toBe(0)
  })

  it('groups heap blocks by call stack and gives reused memory to the new block', () => {
    const c = new Correlator(null)
    c.log('**1** stride-alloc m 5000 40 0 109317')
    c.log('==1==    at 0x484A11E: malloc (allocs.c:64)')
    c.log('==1==    by 0x109312: main (heap.c:62)')
    c.log('==1==    by 0x4874249: (below main) (libc-start.c:58)')
    // The tracer observes every access before attributing it; that ends the backtrace.
    c.observe(WRITE, 0x5010, 8)
    const first = c.attribute(0, WRITE, 0x5010)
    c.log('**1** stride-alloc f 5000')
    c.log('**1** stride-alloc m 5000 20 0 109400')
    c.log('==1==    at 0x484A11E: malloc (allocs.c:64)')
    c.log('==1==    by 0x1093fa: main (heap.c:66)')
    c.observe(WRITE, 0x5010, 8)
    const second = c.attribute(0, WRITE, 0x5010)
    c.attribute(0, WRITE, 0x5018)
    expect(second).not.toBe(first)
    expect(c.attribute(0, WRITE, 0x5030)).toBe(0) // beyond the new, smaller block
    const { variables, histograms } = c.finish()
    expect(variables[first]).toMatchObject({ kind: 'heap', context: [0x109317, 0x4874249] })
    expect(variables[second]).toMatchObject({ kind: 'heap', context: [0x109400], writes: 2 })
    expect(c.allocEvents).toBe(3)
    expect(dominantVariable(histograms.get(0))).toBe(second) // 2 of point 0's 4 accesses
  })

  it("places the program's own libraries' globals at their load base, once, prefixed where the program has the name too", () => {
    const c = new Correlator({
      ...layout(),
      libraries: [{ path: '/opt/app/libfix.so', globals: [{ name: 'table', start: 0x2000, size: 64 }, { name: 'G', start: 0x2100, size: 8 }] }]
    })
    c.programLoaded(0x100000)
    c.libraryLoaded('/usr/lib/x86_64-linux-gnu/libc.so.6', 0x7000000) // not the program's own: ignored
    c.libraryLoaded('/opt/app/libfix.so', 0x5000000)
    c.libraryLoaded('/opt/app/libfix.so', 0x6000000) // seen again (another maps snapshot): kept where it was
    const table = c.attribute(0, READ, 0x5002008)
    const libG = c.attribute(0, READ, 0x5002100)
    expect(c.attribute(0, READ, 0x104008)).toBe(1) // the program's G is untouched
    expect(c.attribute(0, READ, 0x6002008)).toBe(0)
    const { variables } = c.finish()
    expect(variables[table]).toMatchObject({ name: 'table', kind: 'global' })
    expect(variables[libG]).toMatchObject({ name: 'libfix.so:G', kind: 'global' })
  })
})

