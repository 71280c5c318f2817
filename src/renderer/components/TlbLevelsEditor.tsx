/** The what-if form's data TLB levels (at most two, innermost first). */
import type { ReplacementPolicy } from '../../shared/domain'
import { newTlbDraft, type TlbLevelDraft } from '../logic/tlb-form'

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
                <td>
                  <input aria-label={`TLB level ${i + 1} name`} value={l.name} size={5} onChange={(e) => update(i, { name: e.target.value })} />
                </td>
                <td>
                  <input aria-label={`${l.name} entries`} value={l.entries} size={5} inputMode="numeric" onChange={(e) => update(i, { entries: e.target.value })} data-testid={`tlb-entries-${i}`} />
                </td>
                <td>
                  <input aria-label={`${l.name} TLB associativity`} value={l.assoc} size={3} inputMode="numeric" onChange={(e) => update(i, { assoc: e.target.value })} />
                </td>
                <td>
                  <input aria-label={`${l.name} page size`} value={l.pageSize} size={5} onChange={(e) => update(i, { pageSize: e.target.value })} data-testid={`tlb-page-${i}`} />
                </td>
                <td>
                  <select aria-label={`${l.name} TLB replacement policy`} value={l.policy} onChange={(e) => update(i, { policy: e.target.value as ReplacementPolicy })}>
                    <option value="lru">LRU</option>
                    <option value="plru">tree-PLRU</option>
                    <option value="fifo">FIFO</option>
                    <option value="random">Random</option>
                  </select>
                </td>
                <td>
                  <button type="button" className="link-button" aria-label={`Remove ${l.name}`} onClick={() => onChange(levels.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </td>
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
