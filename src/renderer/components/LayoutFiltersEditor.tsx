/** Padding rows of the what-if form: external (bytes before a data structure) or internal (a dimension grows). */
import type { VariableInfo } from '../../shared/domain'
import { newLayoutDraft, paddingCandidates, type LayoutFilterDraft } from '../logic/layout-form'
import { dimsText } from '../../shared/dims-text'

interface Props {
  filters: LayoutFilterDraft[]
  variables: VariableInfo[]
  onChange(filters: LayoutFilterDraft[]): void
}

export function LayoutFiltersEditor({ filters, variables, onChange }: Props) {
  const named = paddingCandidates(variables)
  const update = (i: number, patch: Partial<LayoutFilterDraft>) => onChange(filters.map((f, j) => (j === i ? { ...f, ...patch } : f)))
  const dimsOf = (name: string) => named.find((v) => v.name === name)?.dims ?? null

  return (
    <div className="layout-editor" data-testid="layout-filters">
      {filters.length === 0 && <p className="muted small">No padding: the data structures keep the layout they were traced with.</p>}
      {filters.map((f, i) => {
        const dims = dimsOf(f.variable)
        return (
          <div className="layout-row" key={i} data-testid="layout-row">
            <select aria-label={`Padding ${i + 1} kind`} value={f.kind} onChange={(e) => update(i, { kind: e.target.value as LayoutFilterDraft['kind'] })}>
              <option value="external">Insert bytes before</option>
              <option value="internal">Grow a dimension of</option>
            </select>
            <select aria-label={`Padding ${i + 1} data structure`} value={f.variable} onChange={(e) => update(i, { variable: e.target.value })} data-testid={`layout-variable-${i}`}>
              {!named.some((v) => v.name === f.variable) && <option value={f.variable}>{f.variable || 'choose…'}</option>}
              {named.map((v) => (
                <option key={v.name} value={v.name}>
                  {v.name}
                  {v.dims ? ` ${dimsText(v)}` : ''} ({v.kind})
                </option>
              ))}
            </select>
            {f.kind === 'external' ? (
              <label className="field inline">
                <span>by</span>
                <input aria-label={`Padding ${i + 1} bytes`} value={f.bytes} size={6} onChange={(e) => update(i, { bytes: e.target.value })} data-testid={`layout-bytes-${i}`} />
              </label>
            ) : (
              <>
                <label className="field inline">
                  <span>dimension</span>
                  <select aria-label={`Padding ${i + 1} dimension`} value={f.dim} onChange={(e) => update(i, { dim: e.target.value })}>
                    {(dims ?? [0]).map((d, k) => (
                      <option key={k} value={String(k)}>
                        {k}
                        {dims ? ` (now ${d})` : ''}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="field inline">
                  <span>to</span>
                  <input aria-label={`Padding ${i + 1} new extent`} value={f.extent} size={6} inputMode="numeric" onChange={(e) => update(i, { extent: e.target.value })} />
                </label>
              </>
            )}
            <button type="button" className="link-button" aria-label={`Remove padding ${i + 1}`} onClick={() => onChange(filters.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        )
      })}
      <button type="button" className="link-button" onClick={() => onChange([...filters, newLayoutDraft(variables)])} disabled={named.length === 0} data-testid="add-padding">
        + Add padding
      </button>
    </div>
  )
}
