/** The instructions of one source line with their references and counts (KCachegrind's assembly view). */
import type { ReferenceStats } from '../../shared/domain'
import { formatCount, formatPercent } from '../logic/format'
import { computeLineInstructions } from '../logic/line-instructions'

interface Props {
  references: ReferenceStats[]
  levels: string[]
  activeLevel: string | null
}

export function LineInstructions({ references, levels, activeLevel }: Props) {
  const rows = computeLineInstructions(references, levels)
  if (rows.length === 0) return <p className="muted small">No traced instruction on this line.</p>
  return (
    <table className="line-instructions" data-testid="line-instructions" aria-label="Instructions of the line">
      <thead>
        <tr>
          <th scope="col">Address</th>
          <th scope="col">Instruction</th>
          <th scope="col">Reference</th>
          <th scope="col" className="num">
            Accesses
          </th>
          {levels.map((l) => (
            <th key={l} scope="col" className={`num ${l === activeLevel ? 'is-active' : ''}`}>
              {l} misses
            </th>
          ))}
          {activeLevel && (
            <th scope="col" className="num">
              {activeLevel} miss %
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const active = r.levels.find((l) => l.level === activeLevel)
          return (
            <tr key={r.reference} data-testid="instruction-row" data-pc={r.pc} data-reference={r.reference}>
              <td title={r.pc}>
                <code>{r.place}</code>
              </td>
              <td className="asm" title={r.sourceExpr ?? undefined}>
                <code>{r.disasm ?? '(not disassembled)'}</code>
              </td>
              <th scope="row" className="ref" title={r.reference}>
                <code>{r.reference}</code>
              </th>
              <td className="num">{formatCount(r.accesses)}</td>
              {r.levels.map((l) => (
                <td key={l.level} className={`num ${l.level === activeLevel ? 'is-active' : ''}`} data-level={l.level}>
                  {formatCount(l.misses)}
                </td>
              ))}
              {activeLevel && <td className="num">{formatPercent(active?.ratio ?? null)}</td>}
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}
