/**
 * Files → functions → loops the run touched, by misses; a click opens the node's hottest line.
 * Memoized: the session view re-renders at every change of its store (a what-if's progress,
 * its run added), and a whole program's tree (thousands of nodes) took ~60 ms each time.
 */
import { memo, useState } from 'react'
import type { CodeNode } from '../logic/code-tree'
import { formatCompact } from '../logic/format'

interface Props {
  nodes: CodeNode[]
  currentFile: string | null
  onOpen(file: string, line: number | null): void
}

const Node = memo(function Node({ node, depth, currentFile, onOpen }: { node: CodeNode; depth: number; currentFile: string | null; onOpen: Props['onOpen'] }) {
  const [open, setOpen] = useState(node.kind === 'file')
  const hasChildren = node.children.length > 0
  return (
    <li role="treeitem" aria-expanded={hasChildren ? open : undefined} aria-level={depth + 1} className={`code-node is-${node.kind}`}>
      <div className="code-node-row" style={{ paddingLeft: depth * 12 }}>
        {hasChildren ? (
          <button type="button" className="twisty" aria-label={open ? `Collapse ${node.name}` : `Expand ${node.name}`} onClick={() => setOpen(!open)}>
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="twisty" aria-hidden="true" />
        )}
        <button
          type="button"
          className={`code-node-name ${node.kind === 'file' && node.file === currentFile ? 'is-current' : ''}`}
          title={node.kind === 'file' ? node.file : `${node.name} (line ${node.line ?? '?'})`}
          onClick={() => onOpen(node.file, node.line)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight' && hasChildren) setOpen(true)
            else if (e.key === 'ArrowLeft' && hasChildren) setOpen(false)
          }}
          data-testid={`code-${node.kind}`}
          data-name={node.name}
        >
          {node.name}
        </button>
        <span className="code-node-misses muted" title={`${node.misses.toLocaleString('en-US')} misses`}>
          {formatCompact(node.misses)}
        </span>
      </div>
      {hasChildren && open && (
        <ul role="group">
          {node.children.map((c) => (
            <Node key={`${c.kind}:${c.name}`} node={c} depth={depth + 1} currentFile={currentFile} onOpen={onOpen} />
          ))}
        </ul>
      )}
    </li>
  )
})

export const CodeTree = memo(function CodeTree({ nodes, currentFile, onOpen }: Props) {
  if (nodes.length === 0) return null
  return (
    <section aria-label="Code" data-testid="code-tree">
      <h3 className="side-title">Code · misses</h3>
      <ul role="tree" className="code-tree">
        {nodes.map((n) => (
          <Node key={n.file} node={n} depth={0} currentFile={currentFile} onOpen={onOpen} />
        ))}
      </ul>
    </section>
  )
})
