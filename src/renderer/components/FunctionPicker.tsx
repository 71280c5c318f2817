/**
 * Searchable multi-select over the binary's function symbols. Only the first matches are
 * rendered: a stripped libc-linked binary can list thousands of symbols. With `heat` (a
 * whole-program pass's ranking), the functions that missed come first, most misses first,
 * each with its misses and share.
 */
import { useMemo, useState } from 'react'
import type { FunctionSymbol } from '../../shared/domain'
import type { PickerHeat } from '../logic/hot-picker'
import { baseName, formatCount, formatPercent } from '../logic/format'

const SHOWN = 300

interface Props {
  functions: FunctionSymbol[]
  selected: string[]
  onChange(selected: string[]): void
  disabled?: boolean
  heat?: PickerHeat | null
}

export function FunctionPicker({ functions, selected, onChange, disabled, heat }: Props) {
  const [filter, setFilter] = useState('')
  const chosen = useMemo(() => new Set(selected), [selected])

  const matches = useMemo(() => {
    const q = filter.trim().toLowerCase()
    // Functions with source lines first: those are the user's own code.
    // Ranked (after "Find hot functions"): most misses first, then the rest as before.
    const misses = (f: FunctionSymbol) => heat?.byName.get(f.name)?.misses ?? -1
    const sorted = [...functions].sort(
      (a, b) => misses(b) - misses(a) || Number(b.file !== null) - Number(a.file !== null) || a.name.localeCompare(b.name)
    )
    return q ? sorted.filter((f) => f.name.toLowerCase().includes(q) || f.demangled?.toLowerCase().includes(q)) : sorted
  }, [functions, filter, heat])
  // C++ symbols are shown demangled; the mangled name is what gets traced.
  const shown = useMemo(() => new Map(functions.map((f) => [f.name, f.demangled ?? f.name])), [functions])

  const toggle = (name: string) =>
    onChange(chosen.has(name) ? selected.filter((n) => n !== name) : [...selected, name])

  return (
    <div className="function-picker" data-testid="function-picker">
      <div className="function-picker-bar">
        <input
          type="search"
          placeholder="Filter functions…"
          aria-label="Filter functions"
          value={filter}
          disabled={disabled}
          onChange={(e) => setFilter(e.target.value)}
          data-testid="function-filter"
        />
        <span className="muted">
          {selected.length} of {functions.length} selected
        </span>
        {selected.length > 0 && (
          <button type="button" className="link-button" onClick={() => onChange([])}>
            Clear
          </button>
        )}
      </div>
      {selected.length > 0 && (
        <ul className="chips" aria-label="Selected functions">
          {selected.map((name) => (
            <li key={name} className="chip">
              <code>{shown.get(name) ?? name}</code>
              <button type="button" aria-label={`Remove ${shown.get(name) ?? name}`} onClick={() => toggle(name)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <ul className="function-list" role="group" aria-label="Functions">
        {matches.slice(0, SHOWN).map((f) => (
          <li key={`${f.name}@${f.address}`}>
            <label className="function-row">
              <input
                type="checkbox"
                checked={chosen.has(f.name)}
                disabled={disabled}
                onChange={() => toggle(f.name)}
                data-testid={`function-${f.name}`}
              />
              <code className="function-name" title={f.demangled ? f.name : undefined}>
                {f.demangled ?? f.name}
              </code>
              {heat && <HeatCell level={heat.level} entry={heat.byName.get(f.name)} name={f.name} />}
              <span className="muted function-where">
                {f.file ? `${baseName(f.file)}${f.line !== null ? `:${f.line}` : ''}` : f.address}
              </span>
            </label>
          </li>
        ))}
        {matches.length === 0 && <li className="muted empty-row">No function matches “{filter}”.</li>}
        {matches.length > SHOWN && (
          <li className="muted empty-row">{matches.length - SHOWN} more: refine the filter.</li>
        )}
      </ul>
    </div>
  )
}

/** A function's misses in the whole-program pass, and its share of all of them. */
function HeatCell({ level, entry, name }: { level: string; entry: { misses: number; share: number } | undefined; name: string }) {
  if (!entry) return <span className="muted hot-count" data-testid={`hot-count-${name}`} title="No access of its own in the whole-program pass">–</span>
  return (
    <span className={`hot-count${entry.misses > 0 ? ' is-hot' : ''}`} data-testid={`hot-count-${name}`} title={`${formatCount(entry.misses)} ${level} misses of its own, ${formatPercent(entry.share)} of the program's`}>
      {formatCount(entry.misses)} {level} misses · {formatPercent(entry.share)}
    </span>
  )
}
