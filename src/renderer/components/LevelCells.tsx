/**
 * The table cells the level editors (cache and TLB) are made of: a text field, a choice among
 * options, a Remove button. One place for their markup, so the two editors stay alike.
 */
import type { ReplacementPolicy } from '../../shared/domain'

export const REPLACEMENT_POLICIES: ReadonlyArray<{ value: ReplacementPolicy; label: string }> = [
  { value: 'lru', label: 'LRU' },
  { value: 'plru', label: 'tree-PLRU' },
  { value: 'fifo', label: 'FIFO' },
  { value: 'random', label: 'Random' }
]

export function TextCell({ label, value, size, numeric = false, testId, onChange }: { label: string; value: string; size: number; numeric?: boolean; testId?: string; onChange(value: string): void }) {
  return (
    <td>
      <input aria-label={label} value={value} size={size} inputMode={numeric ? 'numeric' : undefined} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
    </td>
  )
}

export function SelectCell<T extends string>({ label, value, options, testId, onChange }: { label: string; value: T; options: ReadonlyArray<{ value: T; label: string }>; testId?: string; onChange(value: T): void }) {
  return (
    <td>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value as T)} data-testid={testId}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </td>
  )
}

export function RemoveCell({ name, shown = true, onRemove }: { name: string; shown?: boolean; onRemove(): void }) {
  return (
    <td>
      {shown && (
        <button type="button" className="link-button" aria-label={`Remove ${name}`} onClick={onRemove}>
          Remove
        </button>
      )}
    </td>
  )
}
