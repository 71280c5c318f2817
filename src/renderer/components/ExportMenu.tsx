/**
 * Export buttons for any view: CSV/JSON of a table, SVG/PNG of a chart. Files are built in
 * the page and saved through a Blob URL and a download link, which the strict CSP allows in
 * Electron and in web mode; the PNG rasterizes the SVG from a data: URL (img-src data:), so
 * no CSP change is needed.
 */
import { useState } from 'react'
import { exportFileName, toCsv, toJson, type ExportTable } from '../logic/export'
import { downloadBlob } from './download'

interface Props {
  /** Base of the file names, e.g. the query text. */
  title: string
  /** The table behind the view, built when a table export is asked for. */
  table?: () => ExportTable
  /** The chart's SVG element, when the view shows one. */
  chart?: () => SVGSVGElement | null
  testId?: string
  /** What the table export takes, e.g. "Export 12 filtered rows". */
  label?: string
  /** More on it, as a tooltip of the group. */
  hint?: string
}

const STYLE_PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-opacity', 'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline'] as const

/** A standalone copy of a chart: the page's CSS does not travel with the file, so computed styles are inlined. */
export function serializeSvg(svg: SVGSVGElement): { text: string; width: number; height: number } {
  const clone = svg.cloneNode(true) as SVGSVGElement
  const source = [svg, ...svg.querySelectorAll('*')]
  const target = [clone, ...clone.querySelectorAll('*')]
  source.forEach((el, i) => {
    const style = getComputedStyle(el)
    const out = target[i] as SVGElement
    for (const p of STYLE_PROPS) {
      const v = style.getPropertyValue(p)
      if (v) out.style.setProperty(p, v)
    }
  })
  const box = svg.getBoundingClientRect()
  const width = Math.max(1, Math.round(box.width))
  const height = Math.max(1, Math.round(box.height))
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg')
  clone.setAttribute('width', String(width))
  clone.setAttribute('height', String(height))
  const background = getComputedStyle(document.body).backgroundColor
  clone.style.setProperty('background', background)
  return { text: new XMLSerializer().serializeToString(clone), width, height }
}

async function svgToPng(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const { text, width, height } = serializeSvg(svg)
  const image = new Image()
  const loaded = new Promise<void>((resolve, reject) => {
    image.onload = () => resolve()
    image.onerror = () => reject(new Error('the chart could not be rasterized'))
  })
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`
  await loaded
  const canvas = document.createElement('canvas')
  canvas.width = width * scale
  canvas.height = height * scale
  const ctx = canvas.getContext('2d')
  if (!ctx) throw new Error('no 2-D canvas in this window')
  ctx.fillStyle = getComputedStyle(document.body).backgroundColor || '#ffffff'
  ctx.fillRect(0, 0, canvas.width, canvas.height)
  ctx.scale(scale, scale)
  ctx.drawImage(image, 0, 0, width, height)
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'))
}

export function ExportMenu({ title, table, chart, testId = 'export-menu', label = 'Export', hint }: Props) {
  const [error, setError] = useState<string | null>(null)
  const run = (f: () => Promise<void> | void) => async () => {
    setError(null)
    try {
      await f()
    } catch (e) {
      setError(`Export failed: ${e instanceof Error ? e.message : String(e)}.`)
    }
  }
  const svg = () => {
    const el = chart?.()
    if (!el) throw new Error('no chart is shown; pick a chart display first')
    return el
  }
  return (
    <div className="export-menu" role="group" aria-label={label} title={hint} data-testid={testId}>
      <span className="muted small" data-testid="export-scope">
        {label}
      </span>
      {table && (
        <>
          <button type="button" className="button small-button" data-testid="export-csv" onClick={run(() => downloadBlob(new Blob([toCsv(table())], { type: 'text/csv;charset=utf-8' }), exportFileName(title, 'csv')))}>
            CSV
          </button>
          <button type="button" className="button small-button" data-testid="export-json" onClick={run(() => downloadBlob(new Blob([toJson(table())], { type: 'application/json' }), exportFileName(title, 'json')))}>
            JSON
          </button>
        </>
      )}
      {chart && (
        <>
          <button type="button" className="button small-button" data-testid="export-svg" onClick={run(() => downloadBlob(new Blob([serializeSvg(svg()).text], { type: 'image/svg+xml' }), exportFileName(title, 'svg')))}>
            SVG
          </button>
          <button type="button" className="button small-button" data-testid="export-png" onClick={run(async () => downloadBlob(await svgToPng(svg()), exportFileName(title, 'png')))}>
            PNG
          </button>
        </>
      )}
      {error && (
        <span className="export-error" role="alert">
          {error}
        </span>
      )}
    </div>
  )
}
