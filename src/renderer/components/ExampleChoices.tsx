/** The bundled example programs as a radio group of cards (title + description). */
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
          className={`example-card ${selected === ex.name ? 'is-selected' : ''} ${ex.built ? '' : 'is-disabled'}`}
          data-testid={`example-${ex.name}`}
        >
          <input
            type="radio"
            name="example"
            value={ex.name}
            checked={selected === ex.name}
            disabled={!ex.built}
            onChange={() => onSelect(ex.name)}
          />
          <span className="example-title">{ex.title}</span>
          <span className="example-description">{ex.description}</span>
          {!ex.built && <span className="example-note">Not built yet: run npm run examples.</span>}
        </label>
      ))}
    </div>
  )
}
