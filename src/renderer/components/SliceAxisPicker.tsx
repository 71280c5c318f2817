/**
 * The three axes of a slice as checkbox lists: data structures, code regions as a tree
 * (files -> functions -> loops and lines), metrics. Items typed in the notation that the
 * lists do not hold (array sections, other files) show checked at the top of their axis.
 */
import type { AxisOption, CodeNode, SliceAxes, SliceAxis, SliceSelection } from '../logic/query-slice'

interface Props {
  axes: SliceAxes
  selection: SliceSelection
  onToggle(axis: SliceAxis, item: string): void
}

function Check({ axis, option, checked, onToggle }: { axis: SliceAxis; option: AxisOption; checked: boolean; onToggle: Props['onToggle'] }) {
  return (
    <label className="axis-option" title={option.detail}>
      <input type="checkbox" checked={checked} onChange={() => onToggle(axis, option.item)} data-testid={`axis-${axis}-${option.item}`} />
      <span className="axis-label">{option.label}</span>
      {option.detail && <span className="axis-detail">{option.detail}</span>}
    </label>
  )
}

function extra(axis: SliceAxis, listed: Set<string>, selection: SliceSelection, onToggle: Props['onToggle']) {
  return selection[axis]
    .filter((item) => !listed.has(item))
    .map((item) => <Check key={`typed-${item}`} axis={axis} option={{ item, label: item, detail: 'typed' }} checked onToggle={onToggle} />)
}

function CodeTree({ nodes, selection, onToggle }: { nodes: CodeNode[]; selection: SliceSelection; onToggle: Props['onToggle'] }) {
  return (
    <ul className="code-tree" role="group">
      {nodes.map((n) => (
        <li key={n.item} className={`code-node code-${n.kind}`}>
          <Check axis="code" option={n} checked={selection.code.includes(n.item)} onToggle={onToggle} />
          {n.children.length > 0 && <CodeTree nodes={n.children} selection={selection} onToggle={onToggle} />}
        </li>
      ))}
    </ul>
  )
}

const allItems = (nodes: CodeNode[]): string[] => nodes.flatMap((n) => [n.item, ...allItems(n.children)])

export function SliceAxisPicker({ axes, selection, onToggle }: Props) {
  const dataListed = new Set(axes.data.map((d) => d.item))
  const codeListed = new Set(allItems(axes.code))
  const metricListed = new Set(axes.metrics.map((m) => m.item))
  return (
    <div className="slice-axes">
      <fieldset className="slice-axis" data-testid="axis-data">
        <legend>Data structures</legend>
        {extra('data', dataListed, selection, onToggle)}
        {axes.data.map((o) => (
          <Check key={o.item} axis="data" option={o} checked={selection.data.includes(o.item)} onToggle={onToggle} />
        ))}
        <p className="muted small">Array sections by typing: c[*,1], m[0:9,*]</p>
      </fieldset>
      <fieldset className="slice-axis" data-testid="axis-code">
        <legend>Code regions</legend>
        {extra('code', codeListed, selection, onToggle)}
        <CodeTree nodes={axes.code} selection={selection} onToggle={onToggle} />
      </fieldset>
      <fieldset className="slice-axis" data-testid="axis-metrics">
        <legend>Metrics</legend>
        {extra('metrics', metricListed, selection, onToggle)}
        {axes.metrics.map((o) => (
          <Check key={o.item} axis="metrics" option={o} checked={selection.metrics.includes(o.item)} onToggle={onToggle} />
        ))}
      </fieldset>
    </div>
  )
}
