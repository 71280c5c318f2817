/**
 * The three axes of a slice as checkbox lists: data structures, code regions as a tree
 * (files -> functions -> loop nests and lines), metrics. Items typed in the notation that the
 * lists do not hold (array sections, other files) show checked at the top of their axis. The
 * data and code lists have a filter box (a real program has hundreds of structures and
 * thousands of lines): it keeps the items whose name, detail or notation has the text, with
 * the tree nodes above them.
 */
import { useMemo, useState } from 'react'
import { filterAxisOptions, filterCodeNodes, type AxisOption, type CodeNode, type SliceAxes, type SliceAxis, type SliceSelection } from '../logic/query-slice'

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
        // Two files can share a base name (libc's ./elf/../include/x.h and ./string/../include/x.h):
        // the item is the same, the path (detail) is not; a repeated key left stale rows when filtering.
        <li key={`${n.kind}:${n.detail ?? ''}:${n.item}`} className={`code-node code-${n.kind}`} data-kind={n.kind}>
          <Check axis="code" option={n} checked={selection.code.includes(n.item)} onToggle={onToggle} />
          {n.children.length > 0 && <CodeTree nodes={n.children} selection={selection} onToggle={onToggle} />}
        </li>
      ))}
    </ul>
  )
}

const allItems = (nodes: CodeNode[]): string[] => nodes.flatMap((n) => [n.item, ...allItems(n.children)])

function AxisFilter({ axis, value, onChange }: { axis: SliceAxis; value: string; onChange(v: string): void }) {
  return (
    <input
      type="search"
      className="axis-filter"
      placeholder="Filter…"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-label={`Filter the ${axis === 'data' ? 'data structures' : 'code regions'}`}
      spellCheck={false}
      data-testid={`axis-${axis}-filter`}
    />
  )
}

export function SliceAxisPicker({ axes, selection, onToggle }: Props) {
  const [dataText, setDataText] = useState('')
  const [codeText, setCodeText] = useState('')
  const data = useMemo(() => filterAxisOptions(axes.data, dataText), [axes.data, dataText])
  const code = useMemo(() => filterCodeNodes(axes.code, codeText), [axes.code, codeText])
  const dataListed = new Set(axes.data.map((d) => d.item))
  const codeListed = new Set(allItems(axes.code))
  const metricListed = new Set(axes.metrics.map((m) => m.item))
  return (
    <div className="slice-axes">
      <fieldset className="slice-axis" data-testid="axis-data">
        <legend>Data structures</legend>
        <AxisFilter axis="data" value={dataText} onChange={setDataText} />
        {extra('data', dataListed, selection, onToggle)}
        {data.map((o) => (
          <Check key={o.item} axis="data" option={o} checked={selection.data.includes(o.item)} onToggle={onToggle} />
        ))}
        <p className="muted small">Array sections by typing: c[*,1], m[0:9,*]</p>
      </fieldset>
      <fieldset className="slice-axis" data-testid="axis-code">
        <legend>Code regions</legend>
        <AxisFilter axis="code" value={codeText} onChange={setCodeText} />
        {extra('code', codeListed, selection, onToggle)}
        <CodeTree nodes={code} selection={selection} onToggle={onToggle} />
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
