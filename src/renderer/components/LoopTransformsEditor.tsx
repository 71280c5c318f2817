/** Loop-transform rows of the what-if form: interchange or tile the loops at a source line. */
import { newTransformDraft, type LoopTransformDraft } from '../logic/transform-form'

interface Props {
  transforms: LoopTransformDraft[]
  /** The source files of the run's references (recorded paths). */
  files: string[]
  onChange(transforms: LoopTransformDraft[]): void
}

const base = (path: string) => path.slice(path.lastIndexOf('/') + 1)

export function LoopTransformsEditor({ transforms, files, onChange }: Props) {
  const update = (i: number, patch: Partial<LoopTransformDraft>) => onChange(transforms.map((t, j) => (j === i ? { ...t, ...patch } : t)))
  return (
    <div className="layout-editor" data-testid="loop-transforms">
      {transforms.length === 0 && <p className="muted small">No loop transform: the loops run in the order they were traced.</p>}
      {transforms.map((t, i) => (
        <div className="layout-row" key={i} data-testid="transform-row">
          <select aria-label={`Loop transform ${i + 1} kind`} value={t.kind} onChange={(e) => update(i, { kind: e.target.value as LoopTransformDraft['kind'] })} data-testid={`transform-kind-${i}`}>
            <option value="interchange">Interchange the loops at</option>
            <option value="tile">Tile the loops at</option>
          </select>
          <select aria-label={`Loop transform ${i + 1} file`} value={t.file} onChange={(e) => update(i, { file: e.target.value })} title={t.file}>
            {!files.includes(t.file) && <option value={t.file}>{t.file || 'choose…'}</option>}
            {files.map((f) => (
              <option key={f} value={f} title={f}>
                {base(f)}
              </option>
            ))}
          </select>
          <label className="field inline">
            <span>line</span>
            <input aria-label={`Loop transform ${i + 1} line`} value={t.line} size={5} inputMode="numeric" onChange={(e) => update(i, { line: e.target.value })} data-testid={`transform-line-${i}`} />
          </label>
          {t.kind === 'tile' && (
            <label className="field inline">
              <span>tiles of</span>
              <input aria-label={`Loop transform ${i + 1} tile size`} value={t.tile} size={4} inputMode="numeric" onChange={(e) => update(i, { tile: e.target.value })} />
              <span>iterations</span>
            </label>
          )}
          <button type="button" className="link-button" aria-label={`Remove loop transform ${i + 1}`} onClick={() => onChange(transforms.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="link-button" onClick={() => onChange([...transforms, newTransformDraft(files)])} disabled={files.length === 0} data-testid="add-transform">
        + Add loop transform
      </button>
      <p className="muted small">
        The line is the outer loop's header, or a line inside its inner loop; a nest that is not a perfect affine nest over the recorded iterations is
        refused with the reason. Register promotion and other code the compiler would change are not modelled (docs/TRANSFORMS.md).
      </p>
    </div>
  )
}
