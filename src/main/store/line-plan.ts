/**
 * A session's source lines as a run's table by line lists them, worked out once from the point
 * table's file and line columns (no run changes them): each point's line, and the lines in the report's order (by file,
 * then line). A run's table then sums its rows into typed arrays by line, with no line looked up
 * by name and no sort (`lineReportOfRun`, store/runs.ts).
 */
import { compareLines } from '../../shared/report-model'

export interface LinePlan {
  /** Per point: the index of its line, or -1 (no file or line: left out of the table). */
  lineOf: Int32Array
  files: string[]
  lines: number[]
  /** Line indices in the report's order. */
  order: Int32Array
}

/** From each point's file and line (by index; null: unknown). */
export function linePlan(pointFiles: ReadonlyArray<string | null>, pointLines: ReadonlyArray<number | null>): LinePlan {
  const lineOf = new Int32Array(pointFiles.length).fill(-1)
  const byFile = new Map<string, Map<number, number>>()
  const files: string[] = []
  const lines: number[] = []
  for (let p = 0; p < pointFiles.length; p++) {
    const file = pointFiles[p]
    const line = pointLines[p]
    if (!file || !line) continue
    let byLine = byFile.get(file)
    if (!byLine) byFile.set(file, (byLine = new Map()))
    let at = byLine.get(line)
    if (at === undefined) {
      at = files.length
      byLine.set(line, at)
      files.push(file)
      lines.push(line)
    }
    lineOf[p] = at
  }
  // compareLines' order with the collation asked only to order the distinct files, not at each
  // comparison of lines: files ranked (files it calls equal share a rank), then lines sorted by
  // rank, line and the files' text (the C++ containers program's lines: 11.7 -> 6-10 ms).
  const rankOf = fileRanks(byFile.keys())
  const ranks = Int32Array.from(files, (f) => rankOf.get(f)!)
  const order = Int32Array.from(files.keys()).sort((a, b) => {
    const fa = files[a]!
    const fb = files[b]!
    return ranks[a]! - ranks[b]! || lines[a]! - lines[b]! || (fa < fb ? -1 : fa > fb ? 1 : 0)
  })
  return { lineOf, files, lines, order }
}

/** Each file's place in the collation's order; files it calls equal get the same rank. */
function fileRanks(names: Iterable<string>): Map<string, number> {
  const sorted = [...names].sort((a, b) => compareLines(a, 0, b, 0))
  const ranks = new Map<string, number>()
  let rank = 0
  sorted.forEach((name, i) => {
    if (i > 0 && sorted[i - 1]!.localeCompare(name) !== 0) rank++
    ranks.set(name, rank)
  })
  return ranks
}
