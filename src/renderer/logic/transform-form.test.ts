import { describe, expect, it } from 'vitest'
import { newTransformDraft, parseTransformForm, transformDraft } from './transform-form'

const FILES = ['/src/mm.c', '/src/t.c']

describe('parseTransformForm', () => {
  it('turns rows into the contract\'s transforms', () => {
    expect(
      parseTransformForm(
        [
          { kind: 'interchange', file: '/src/mm.c', line: '12', tile: '16' },
          { kind: 'tile', file: '/src/t.c', line: ' 10 ', tile: '32' }
        ],
        FILES
      )
    ).toEqual({ ok: true, transforms: [{ kind: 'interchange', file: '/src/mm.c', line: 12 }, { kind: 'tile', file: '/src/t.c', line: 10, tile: 32 }] })
  })

  it('names the row and the fix for a file, line or tile size that is not one', () => {
    expect(parseTransformForm([{ kind: 'interchange', file: '/x.c', line: '3', tile: '' }], FILES)).toEqual({ ok: false, error: expect.stringMatching(/^Loop transform 1: choose a source file/) })
    expect(parseTransformForm([{ kind: 'interchange', file: '/src/mm.c', line: '0', tile: '' }], FILES)).toEqual({ ok: false, error: expect.stringMatching(/the line "0" is not a line number/) })
    expect(parseTransformForm([newTransformDraft(FILES)], FILES)).toEqual({ ok: false, error: expect.stringMatching(/the line "" is not/) })
    expect(parseTransformForm([{ kind: 'tile', file: '/src/t.c', line: '4', tile: '1.5' }], FILES)).toEqual({ ok: false, error: expect.stringMatching(/tile size "1.5" must be a whole number/) })
  })

  it('round-trips a run\'s transforms through the rows', () => {
    const transforms = [{ kind: 'tile' as const, file: '/src/t.c', line: 10, tile: 8 }]
    expect(parseTransformForm(transforms.map(transformDraft), FILES)).toEqual({ ok: true, transforms })
  })
})
