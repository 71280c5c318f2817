/** Editable cache hierarchy for the automatic simulation (innermost level first). */
import type { PrefetchPolicy, WritePolicy } from '../../shared/domain'
import { cacheFormWarnings, nextLevelDraft, type CacheLevelDraft } from '../logic/cache-form'
import { REPLACEMENT_POLICIES, RemoveCell, SelectCell, TextCell } from './LevelCells'

interface Props {
  levels: CacheLevelDraft[]
  cachegrindCompatible: boolean
  onChange(levels: CacheLevelDraft[]): void
  onCachegrindChange(v: boolean): void
  /** The what-if keeps the run's counting mode: hide the switch. */
  hideCachegrind?: boolean
  /** Also edit each level's prefetcher, write policy, write-allocate and inclusion (the what-if form). */
  allOptions?: boolean
}

const PREFETCHERS: { value: PrefetchPolicy; label: string }[] = [
  { value: 'none', label: 'none' },
  { value: 'next-line', label: 'next line' },
  { value: 'stride', label: 'stride (per reference)' }
]

const WRITE_POLICIES: { value: WritePolicy; label: string }[] = [
  { value: 'write-back', label: 'write-back' },
  { value: 'write-through', label: 'write-through' }
]

export function CacheLevelsEditor({ levels, cachegrindCompatible, onChange, onCachegrindChange, hideCachegrind = false, allOptions = false }: Props) {
  const update = (i: number, patch: Partial<CacheLevelDraft>) =>
    onChange(levels.map((l, j) => (j === i ? { ...l, ...patch } : l)))
  // Options the simple form keeps as the run had them live in `kept`; this form edits them there.
  const option = (i: number, patch: NonNullable<CacheLevelDraft['kept']>) => update(i, { kept: { ...levels[i]!.kept, ...patch } })

  return (
    <div className="cache-editor">
      <table className="cache-levels">
        <thead>
          <tr>
            <th scope="col">Level</th>
            <th scope="col">Size</th>
            <th scope="col">Ways</th>
            <th scope="col">Line (bytes)</th>
            <th scope="col">Replacement</th>
            {allOptions && (
              <>
                <th scope="col">Prefetcher</th>
                <th scope="col">Writes</th>
                <th scope="col" title="A write miss brings the line in">Write-allocate</th>
                <th scope="col" title="Evicting a line here removes it from the levels inside">Inclusive</th>
              </>
            )}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {levels.map((l, i) => (
            <tr key={i}>
              <TextCell label={`Level ${i + 1} name`} value={l.name} size={4} onChange={(name) => update(i, { name })} />
              <TextCell label={`${l.name} size`} value={l.size} size={6} onChange={(size) => update(i, { size })} testId={`cache-size-${i}`} />
              <TextCell label={`${l.name} associativity`} value={l.assoc} size={3} numeric onChange={(assoc) => update(i, { assoc })} testId={`cache-assoc-${i}`} />
              <TextCell label={`${l.name} line size`} value={l.lineSize} size={4} numeric onChange={(lineSize) => update(i, { lineSize })} testId={`cache-line-${i}`} />
              <SelectCell label={`${l.name} replacement policy`} value={l.policy ?? 'lru'} options={REPLACEMENT_POLICIES} onChange={(policy) => update(i, { policy })} testId={`cache-policy-${i}`} />
              {allOptions && (
                <>
                  <SelectCell label={`${l.name} prefetcher`} value={l.kept?.prefetch ?? 'none'} options={PREFETCHERS} onChange={(prefetch) => option(i, { prefetch })} testId={`cache-prefetch-${i}`} />
                  <SelectCell label={`${l.name} write policy`} value={l.kept?.writePolicy ?? 'write-back'} options={WRITE_POLICIES} onChange={(writePolicy) => option(i, { writePolicy })} testId={`cache-write-${i}`} />
                  <td>
                    <input type="checkbox" aria-label={`${l.name} write-allocate`} checked={l.kept?.writeAllocate ?? true} onChange={(e) => option(i, { writeAllocate: e.target.checked })} data-testid={`cache-allocate-${i}`} />
                  </td>
                  <td>
                    {/* Inclusion is a property of an outer level (it back-invalidates the inner ones). */}
                    <input type="checkbox" aria-label={`${l.name} inclusive`} checked={l.kept?.inclusive ?? false} disabled={i === 0} onChange={(e) => option(i, { inclusive: e.target.checked })} data-testid={`cache-inclusive-${i}`} />
                  </td>
                </>
              )}
              <RemoveCell name={l.name} shown={levels.length > 1} onRemove={() => onChange(levels.filter((_, j) => j !== i))} />
            </tr>
          ))}
        </tbody>
      </table>
      {cacheFormWarnings(levels).map((w) => (
        <p key={w} className="notice warning small" data-testid="cache-warning">
          {w}
        </p>
      ))}
      <div className="cache-editor-actions">
        {levels.length < 3 && (
          <button type="button" className="link-button" onClick={() => onChange([...levels, nextLevelDraft(levels)])}>
            + Add level
          </button>
        )}
        {!hideCachegrind && (
        <label className="checkbox">
          <input type="checkbox" checked={cachegrindCompatible} onChange={(e) => onCachegrindChange(e.target.checked)} data-testid="cachegrind-compatible" />
          Cachegrind-compatible counting
        </label>
        )}
      </div>
    </div>
  )
}
