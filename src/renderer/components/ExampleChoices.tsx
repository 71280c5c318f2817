/**
 * The bundled example programs as a radio group of cards (title + description). One not built
 * yet is still offered when this machine can build it (picking it builds it); one that cannot be
 * built here is disabled, and its card says why in one line.
 */
import type { ExampleProgram } from '../../shared/domain'

interface Props {
  examples: ExampleProgram[]
  selected: string | null
  onSelect(name: string | null): void
}

export function ExampleChoices({ examples, selected, onSelect }: Props) {
  return (
    <div className="example-choices" role="radiogroup" aria-label="Example programs">
      {examples.map((ex) => (
        <label
          key={ex.name}
          className={`example-card ${selected === ex.name ? 'is-selected' : ''} ${ex.built || ex.buildable ? '' : 'is-disabled'}`}
          data-testid={`example-${ex.name}`}
        >
          <input
            type="radio"
            name="example"
            value={ex.name}
            checked={selected === ex.name}
            disabled={!ex.built && !ex.buildable}
            onChange={() => onSelect(ex.name)}
          />
          <span className="example-title">{ex.title}</span>
          <span className="example-description">{ex.description}</span>
          {ex.buildNote && (
            <span className="example-note" data-testid={`example-note-${ex.name}`}>
              {ex.buildNote}
            </span>
          )}
        </label>
      ))}
    </div>
  )
}
