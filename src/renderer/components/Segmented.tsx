/** A small segmented control (radio group) for view options like level or metric. */
interface Props<T extends string> {
  label: string
  value: T
  options: { value: T; label: string }[]
  onChange(value: T): void
  testId?: string
}

export function Segmented<T extends string>({ label, value, options, onChange, testId }: Props<T>) {
  return (
    <div className="segmented compact" role="radiogroup" aria-label={label} data-testid={testId}>
      {options.map((o) => (
        <label key={o.value} className={o.value === value ? 'is-on' : ''}>
          <input type="radio" name={label} checked={o.value === value} onChange={() => onChange(o.value)} />
          {o.label}
        </label>
      ))}
    </div>
  )
}
