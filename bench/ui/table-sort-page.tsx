// Runs in Chromium (bundled by table-sort.mjs --browser): the app's ReferenceTable (DataTable)
// over N synthetic access points, and a timer of a header click to the commit that sets the
// header's aria-sort (a MutationObserver), and to the next frame.
import { createRoot } from 'react-dom/client'
import { ReferenceTable } from '../../src/renderer/components/ReferenceTable'
import type { ReferenceRow } from '../../src/renderer/logic/references'

function rows(n: number, seed: number): ReferenceRow[] {
  let x = seed
  const rnd = () => ((x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32)
  return Array.from({ length: n }, (_, i) => {
    const misses = Math.floor(rnd() * 1e6)
    const hits = Math.floor(rnd() * 1e6)
    const file = `/src/file${i % 53}.c`
    const line = Math.floor(rnd() * 4000)
    return {
      id: `V${Math.floor(rnd() * 9000)}_Read_${line}@f${i % 311}+0x${(i * 7).toString(16)}`,
      pc: `0x${(0x400000 + i * 4).toString(16)}`,
      kind: 'read' as const,
      file,
      line,
      function: `f${i % 311}`,
      variable: `V${i % 9000}`,
      location: `file${i % 53}.c:${line}`,
      sourceExpr: rnd() < 0.1 ? null : `V${i % 9000}[i]`,
      disasm: null,
      reads: misses + hits,
      writes: 0,
      hits,
      misses,
      ratio: misses / (misses + hits || 1)
    }
  })
}

declare global {
  interface Window {
    benchMount(n: number): Promise<void>
    benchSort(key: string, expected: string): Promise<{ commitMs: number; frameMs: number }>
  }
}

const root = createRoot(document.getElementById('root')!)
window.benchMount = async (n) => {
  root.render(<ReferenceTable rows={rows(n, 7)} level="L1" selectedId={null} selectedLine={null} onActivate={() => {}} exportTitle="bench" />)
  while (!document.querySelector('[data-testid="reference-row"]')) await new Promise((r) => setTimeout(r, 20))
  // The table computes its sort keys in idle time: let it.
  await new Promise((r) => setTimeout(r, 3000))
}
window.benchSort = (key, expected) =>
  new Promise((resolve, reject) => {
    const button = document.querySelector<HTMLButtonElement>(`[data-testid="sort-${key}"]`)
    const th = button?.closest('th')
    if (!button || !th) return reject(new Error(`no sort-${key}`))
    let t0 = 0
    const observer = new MutationObserver(() => {
      if (th.getAttribute('aria-sort') !== expected) return
      const commitMs = performance.now() - t0
      observer.disconnect()
      requestAnimationFrame(() => resolve({ commitMs, frameMs: performance.now() - t0 }))
    })
    observer.observe(th, { attributes: true, attributeFilter: ['aria-sort'] })
    setTimeout(() => reject(new Error(`sort-${key} did not become ${expected}`)), 10_000)
    t0 = performance.now()
    button.click()
  })
