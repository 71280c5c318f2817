/**
 * The what-if form's loop-transform rows as the user types them, and their validation into the
 * contract's LoopTransform list (simulate/transform/ reads the nest from the source).
 */
import { loopTransformSchema } from '../../shared/schemas'
import type { LoopTransform } from '../../shared/domain'

export interface LoopTransformDraft {
  kind: 'interchange' | 'tile'
  /** A source file of the run's references (its recorded path). */
  file: string
  line: string
  /** tile: iterations per tile side. */
  tile: string
}

export function transformDraft(t: LoopTransform): LoopTransformDraft {
  return { kind: t.kind, file: t.file, line: String(t.line), tile: t.kind === 'tile' ? String(t.tile) : '16' }
}

/** A new row: the first file the run's references are in, interchange. */
export function newTransformDraft(files: string[]): LoopTransformDraft {
  return { kind: 'interchange', file: files[0] ?? '', line: '', tile: '16' }
}

export type TransformFormResult = { ok: true; transforms: LoopTransform[] } | { ok: false; error: string }

const whole = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : NaN)

export function parseTransformForm(drafts: LoopTransformDraft[], files: string[]): TransformFormResult {
  const out: LoopTransform[] = []
  for (const [i, d] of drafts.entries()) {
    const where = `Loop transform ${i + 1}`
    if (!files.includes(d.file)) return { ok: false, error: `${where}: choose a source file of this run's references ("${d.file}" is not one).` }
    const line = whole(d.line)
    if (!(line >= 1)) return { ok: false, error: `${where}: the line "${d.line}" is not a line number (the outer loop's header, or a line in its inner loop).` }
    let t: unknown = { kind: 'interchange', file: d.file, line }
    if (d.kind === 'tile') {
      const tile = whole(d.tile)
      if (!(tile >= 1)) return { ok: false, error: `${where}: the tile size "${d.tile}" must be a whole number of iterations, 1 or more (e.g. 16).` }
      t = { kind: 'tile', file: d.file, line, tile }
    }
    const parsed = loopTransformSchema.safeParse(t)
    if (!parsed.success) return { ok: false, error: `${where}: ${parsed.error.issues[0]?.message ?? 'invalid'}.` }
    out.push(parsed.data as LoopTransform)
  }
  return { ok: true, transforms: out }
}
