/** The what-if form's data TLB levels (at most two, innermost first). */
import { newTlbDraft, type TlbLevelDraft } from '../logic/tlb-form'
import { REPLACEMENT_POLICIES, RemoveCell, SelectCell, TextCell } from './LevelCells'

interface Props {
  levels: TlbLevelDraft[]
  onChange(levels: TlbLevelDraft[]): void
}

export function TlbLevelsEditor({ levels, onChange }: Props) {
  const update = (i: number, patch: Partial<TlbLevelDraft>) => onChange(levels.map((l, j) => (j === i ? { ...l, ...patch } : l)))
  return (
    <div className="cache-editor" data-testid="tlb-levels">
      {levels.length === 0 ? (
        <p className="muted small">No data TLB: address translation is not simulated.</p>
      ) : (
        <table className="cache-levels">
          <thead>
            <tr>
              <th scope="col">TLB level</th>
              <th scope="col">Entries</th>
              <th scope="col">Ways</th>
              <th scope="col">Page</th>
              <th scope="col">Replacement</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {levels.map((l, i) => (
              <tr key={i}>
                <TextCell label={`TLB level ${i + 1} name`} value={l.name} size={5} onChange={(name) => update(i, { name })} />
                <TextCell label={`${l.name} entries`} value={l.entries} size={5} numeric onChange={(entries) => update(i, { entries })} testId={`tlb-entries-${i}`} />
                <TextCell label={`${l.name} TLB associativity`} value={l.assoc} size={3} numeric onChange={(assoc) => update(i, { assoc })} />
                <TextCell label={`${l.name} page size`} value={l.pageSize} size={5} onChange={(pageSize) => update(i, { pageSize })} testId={`tlb-page-${i}`} />
                <SelectCell label={`${l.name} TLB replacement policy`} value={l.policy} options={REPLACEMENT_POLICIES} onChange={(policy) => update(i, { policy })} />
                <RemoveCell name={l.name} onRemove={() => onChange(levels.filter((_, j) => j !== i))} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {levels.length < 2 && (
        <button type="button" className="link-button" onClick={() => onChange([...levels, newTlbDraft(levels)])} data-testid="add-tlb">
          + Add TLB level
        </button>
      )}
    </div>
  )
}
