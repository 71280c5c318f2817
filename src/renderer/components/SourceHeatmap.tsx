/**
 * Read-only Monaco view of one source file, each line painted by its heat bucket, with a
 * gutter bar proportional to the metric and a hover card of the line's figures. Loaded
 * lazily: Monaco is the largest part of the bundle.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import Editor, { type OnMount } from '@monaco-editor/react'
import { monaco } from '../monaco/setup'
import type { ReferenceStats } from '../../shared/domain'
import { computeHeatRuns, type HeatMap, type HeatRun } from '../logic/heat'
import { placeCard } from '../logic/place-card'
import type { LineMetric } from '../logic/line-metrics'
import { LineStatsCard } from './LineStatsCard'
import { useIsDark } from './use-color-scheme'

type CodeEditor = Parameters<OnMount>[0]

/** Overview-ruler marks use the same YlOrRd steps as styles/heat.css. */
const RULER_COLORS = ['', '#fed976', '#feb24c', '#fd8d3c', '#f03b20', '#bd0026']
/** Diff marks: PuOr-free green/red pair that stays distinct for red-green weak eyes by lightness. */
const DIFF_RULER = { better: '#1a9850', worse: '#d73027' }
/** Lines painted above and below the viewport, so ordinary scrolling needs no repaint. */
const PAINT_MARGIN = 150

export interface SourceHeatmapProps {
  /** Model identity (session + file), so switching files does not reuse undo/scroll state. */
  modelPath: string
  /** The file as the report names it (exposed as data-file for tests and tools). */
  file: string
  text: string
  metrics: Map<number, LineMetric>
  heat: HeatMap
  level: string | null
  referencesByLine: Map<number, ReferenceStats[]>
  selection: { line: number; seq: number } | null
  onSelectLine(line: number): void
}

interface Hover {
  line: number
  x: number
  y: number
}

export default function SourceHeatmap(props: SourceHeatmapProps) {
  const { modelPath, file, text, metrics, heat, level, referencesByLine, selection, onSelectLine } = props
  const dark = useIsDark()
  const [editor, setEditor] = useState<CodeEditor | null>(null)
  const lineDecos = useRef<ReturnType<CodeEditor['createDecorationsCollection']> | null>(null)
  const markDecos = useRef<ReturnType<CodeEditor['createDecorationsCollection']> | null>(null)
  const [hover, setHover] = useState<Hover | null>(null)
  const card = useRef<HTMLDivElement>(null)
  // Monaco's listeners are registered once; they read the latest props through refs.
  const latest = useRef({ metrics, onSelectLine, selection })
  latest.current = { metrics, onSelectLine, selection }

  const onMount: OnMount = (ed) => {
    lineDecos.current = ed.createDecorationsCollection()
    markDecos.current = ed.createDecorationsCollection()
    ed.onMouseMove((e) => {
      const line = e.target.position?.lineNumber
      if (line && latest.current.metrics.has(line)) {
        setHover({ line, x: e.event.browserEvent.clientX, y: e.event.browserEvent.clientY })
      } else setHover(null)
    })
    ed.onMouseLeave(() => setHover(null))
    // The editor keeps n / N / F8 for walking hot lines (handled by the pane) rather than its own find.
    ed.addCommand(monaco.KeyCode.F8, () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'F8' })))
    ed.addCommand(monaco.KeyMod.Shift | monaco.KeyCode.F8, () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'F8', shiftKey: true })))
    ed.onMouseDown((e) => {
      const line = e.target.position?.lineNumber
      if (line && latest.current.metrics.has(line)) latest.current.onSelectLine(line)
    })
    // The editor's height changes when a line is pinned (its card opens below) or the window
    // or split is resized: the pinned line is brought back into view if that hid it.
    ed.onDidLayoutChange(() => {
      const pinned = latest.current.selection?.line
      if (pinned) ed.revealLineInCenterIfOutsideViewport(pinned)
    })
    setEditor(ed)
  }

  // Paint. Line colors and gutter bars go on the lines around the viewport only (re-done as
  // the view scrolls): Monaco's cost grows with the number of decorations, and a 10,000-line
  // file would take 100+ ms per repaint. Ruler and minimap marks cover the whole file as runs.
  const painted = useRef<{ from: number; to: number } | null>(null)
  const paintLines = useRef<() => void>(() => undefined)
  paintLines.current = () => {
    if (!editor || !lineDecos.current) return
    const visible = editor.getVisibleRanges()
    const first = visible[0]?.startLineNumber ?? 1
    const last = visible[visible.length - 1]?.endLineNumber ?? first
    const from = Math.max(1, first - PAINT_MARGIN)
    const to = last + PAINT_MARGIN
    const decos: Parameters<CodeEditor['createDecorationsCollection']>[0] = []
    for (let line = from; line <= to; line++) {
      const h = heat.lines.get(line)
      if (!h || (h.bucket === 0 && h.bar === 0)) continue
      const hottest = line === heat.hottest ? ' heat-hottest' : ''
      const tone = !heat.signed ? `heat-bg-${h.bucket}` : h.sign < 0 ? `diff-better-${h.bucket}` : `diff-worse-${h.bucket}`
      const bar = !heat.signed ? `heat-fg-${h.bucket}` : h.sign < 0 ? `diff-fg-better` : `diff-fg-worse`
      decos.push({
        range: new monaco.Range(line, 1, line, 1),
        options: { isWholeLine: true, className: `heat-line ${tone}${hottest}`, linesDecorationsClassName: `heat-bar bar-w${h.bar} ${bar}` }
      })
    }
    if (selection) {
      decos.push({
        range: new monaco.Range(selection.line, 1, selection.line, 1),
        options: { isWholeLine: true, className: 'line-selected', linesDecorationsClassName: 'line-selected-mark' }
      })
    }
    lineDecos.current.set(decos)
    painted.current = { from, to }
  }

  useEffect(() => {
    if (!editor || !lineDecos.current || !markDecos.current) return
    performance.mark('stride:heat-decorate')
    paintLines.current()
    const color = (r: HeatRun) => (heat.signed ? (r.sign < 0 ? DIFF_RULER.better : DIFF_RULER.worse) : RULER_COLORS[r.bucket]!)
    markDecos.current.set(
      computeHeatRuns(heat).map((r) => ({
        range: new monaco.Range(r.start, 1, r.end, 1),
        options: {
          isWholeLine: true,
          overviewRuler: { color: color(r), position: monaco.editor.OverviewRulerLane.Right },
          minimap: { color: color(r), position: monaco.editor.MinimapPosition.Inline }
        }
      }))
    )
    performance.measure('stride:heat-set', 'stride:heat-decorate')
    // Repaint time: from the heat computation to the frame that shows the new decorations. The
    // mark is looked for in that frame: two decorations in one frame each ask for it, and the
    // first one's measure clears it.
    requestAnimationFrame(() => {
      if (performance.getEntriesByName('stride:heat-start', 'mark').length === 0) return
      performance.measure('stride:heat-repaint', 'stride:heat-start')
      performance.clearMarks('stride:heat-start')
    })
  }, [editor, heat, selection, text])

  // Scrolling past the painted window paints the new lines.
  useEffect(() => {
    if (!editor) return
    const sub = editor.onDidScrollChange(() => {
      const visible = editor.getVisibleRanges()
      const first = visible[0]?.startLineNumber ?? 1
      const last = visible[visible.length - 1]?.endLineNumber ?? first
      const p = painted.current
      if (!p || first < p.from || last > p.to) paintLines.current()
    })
    return () => sub.dispose()
  }, [editor])

  // Reveal the selected line (table click / Enter) in the middle of the view.
  useEffect(() => {
    if (!editor || !selection) return
    editor.revealLineInCenter(selection.line)
    editor.setPosition({ lineNumber: selection.line, column: 1 })
  }, [editor, selection?.seq]) // eslint-disable-line react-hooks/exhaustive-deps

  // When a file opens, show its hottest line rather than the license header.
  useEffect(() => {
    if (editor && heat.hottest && !selection) editor.revealLineInCenterIfOutsideViewport(heat.hottest)
  }, [editor, modelPath, heat.hottest]) // eslint-disable-line react-hooks/exhaustive-deps

  const hovered = hover ? metrics.get(hover.line) : undefined
  // The card is placed once measured, beside the pointer and wholly inside the window.
  useLayoutEffect(() => {
    const el = card.current
    if (!el || !hover) return
    const p = placeCard({ x: hover.x, y: hover.y }, { width: el.offsetWidth, height: el.offsetHeight }, { width: window.innerWidth, height: window.innerHeight })
    el.style.left = `${p.left}px`
    el.style.top = `${p.top}px`
    el.style.visibility = 'visible'
  })
  return (
    <div
      className="source-view"
      data-testid="source-view"
      data-file={file}
      data-hottest-line={heat.hottest ?? ''}
      data-selected-line={selection?.line ?? ''}
    >
      <Editor
        path={modelPath}
        value={text}
        language="c"
        theme={dark ? 'vs-dark' : 'vs'}
        onMount={onMount}
        loading={<p className="muted pad">Loading editor…</p>}
        options={{
          readOnly: true,
          domReadOnly: true,
          // The minimap shows where the hot regions of a long file are (lines carry minimap marks).
          minimap: { enabled: true, renderCharacters: false, showSlider: 'mouseover', scale: 1 },
          scrollBeyondLastLine: false,
          renderLineHighlight: 'none',
          lineDecorationsWidth: 40,
          glyphMargin: false,
          folding: false,
          stickyScroll: { enabled: false },
          fontSize: 13,
          automaticLayout: true,
          tabFocusMode: true,
          contextmenu: false,
          hover: { enabled: false },
          ariaLabel: 'Source with cache-miss heat'
        }}
      />
      {hover && hovered && (
        <div ref={card} className="hover-card" role="tooltip" data-testid="hover-card" data-line={hover.line} style={{ left: 0, top: 0, visibility: 'hidden' }}>
          <LineStatsCard metric={hovered} references={referencesByLine.get(hover.line) ?? []} activeLevel={level} />
        </div>
      )}
    </div>
  )
}
