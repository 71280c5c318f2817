/**
 * The open session: its summary, the selected run's report, and what the user is looking
 * at (level, metric, file, selected line). Reports are computed by the backend; we keep
 * them as received.
 */
import { create } from 'zustand'
import type { RunReport, SessionInfo } from '../../shared/domain'
import type { HeatMetric } from '../logic/heat-metrics'
import { computeSourceFiles } from '../logic/references'
import { adviceLevel, useAdvice } from './advice-store'
import { useRecent } from './recent-store'
import { errorMessage, stride } from './stride'
import { ReportLoader } from './report-loader'
import { runStillShown } from '../logic/reopen'

/** Reports by run: whole the first time for a recording, its figures after (report-loader.ts). */
const reports = new ReportLoader(stride)

/** The report on screen, when it is that run's of that session and loaded. */
function shownReport(s: SessionState, path: string, run: number | null): RunReport | null {
  return s.report && s.reportStatus === 'ready' && s.path === path && s.run === run ? s.report : null
}

/** The workspace's views of one run; each is a tab (keyboard: Alt+1..9). */
export type WorkspaceTab =
  | 'source'
  // ---- evictor graph and advisor ----
  | 'evictors'
  | 'advisor'
  // ---- what-if and comparison ----
  | 'whatif'
  | 'compare'
  // ---- data structures ----
  | 'objects'
  // ---- query slices ----
  | 'query'
  // ---- over time ----
  | 'timeline'
  // ---- threads (sessions of several threads) ----
  | 'threads'

/** A run to compare with: of this session, or of another session of the same program. */
export interface BaselineRef {
  session: string
  run: number
}

export interface LineSelection {
  file: string
  line: number
  /** Bumped on every selection so re-selecting the same line reveals it again. */
  seq: number
  /** Reference id whose row was clicked, if the selection came from the table. */
  reference: string | null
}

interface SessionState {
  path: string | null
  info: SessionInfo | null
  run: number | null
  report: RunReport | null
  status: 'idle' | 'loading' | 'ready' | 'error'
  /** Report-specific state ('loading' while switching runs). */
  reportStatus: 'idle' | 'loading' | 'ready' | 'error'
  error: string | null
  level: string | null
  metric: HeatMetric
  /** Paint lines the traced code touched once (off: they are noise, see SourcePane). */
  showNoise: boolean
  file: string | null
  selection: LineSelection | null
  tab: WorkspaceTab
  /** The run the current one is compared against (diff view, what-if); null: none. */
  baseline: BaselineRef | null
  baselineReport: RunReport | null
  baselineStatus: 'idle' | 'loading' | 'ready' | 'error'
  baselineError: string | null
  /**
   * A run a what-if just added, shown in Compare against the baseline without becoming the
   * active run: the active run changes only when the user picks it (makeActive, or the Runs list).
   */
  added: number | null
  addedReport: RunReport | null
  open(path: string, run?: number | null): Promise<void>
  selectRun(run: number): Promise<void>
  setLevel(level: string): void
  setMetric(metric: HeatMetric): void
  setShowNoise(show: boolean): void
  setFile(file: string): void
  setTab(tab: WorkspaceTab): void
  /** Compare with a run of this or another session; loads its report. */
  setBaseline(baseline: BaselineRef | null): Promise<void>
  /** Compare with the latest run of another session (same program, another trace). */
  compareWithSession(path: string): Promise<void>
  select(file: string | null, line: number | null, reference?: string | null): void
  /** Shows a run a what-if added in Compare (against the baseline); the active run stays. */
  showAdded(run: number): Promise<void>
  /** Makes the added run the active one. */
  makeActive(): Promise<void>
  dismissAdded(): void
  /** Gives a run the user's label ('' goes back to the derived one); the runs are re-read. */
  renameRun(run: number, label: string): Promise<void>
  close(): void
}

// Each load gets a ticket; a late answer for an older request is dropped.
let ticket = 0
let baselineTicket = 0

export const useSession = create<SessionState>((set, get) => ({
  path: null,
  info: null,
  run: null,
  report: null,
  status: 'idle',
  reportStatus: 'idle',
  error: null,
  level: null,
  metric: 'misses',
  showNoise: false,
  file: null,
  selection: null,
  tab: 'source',
  baseline: null,
  baselineReport: null,
  baselineStatus: 'idle',
  baselineError: null,
  added: null,
  addedReport: null,

  async open(path, run = null) {
    const my = ++ticket
    // A what-if reopens the same session at its new run: keep the baseline it is compared with.
    const keep = path === get().path
    // Reopened at the run on screen (a what-if of it ended): that run stays on screen while the
    // session is read again, and its report stays if the run did (runStillShown).
    const before = keep && run !== null && shownReport(get(), path, run) ? get().info : null
    if (before) set({ status: 'loading', error: null })
    else set({ path, status: 'loading', error: null, info: null, report: null, selection: null, reportStatus: 'idle' })
    if (!keep) set({ baseline: null, baselineReport: null, baselineStatus: 'idle', baselineError: null, added: null, addedReport: null })
    try {
      const info = await stride().openSession({ path })
      if (my !== ticket) return
      if (runStillShown(before, info, run)) return void set({ info, status: 'ready' })
      if (before) set({ info: null, report: null, selection: null, reportStatus: 'idle' })
      set({ info, status: 'ready' })
      void useRecent.getState().load()
      const latest = info.runs.length > 0 ? Math.max(...info.runs.map((r) => r.run)) : null
      const chosen = run ?? latest
      if (chosen !== null) await get().selectRun(chosen)
      else set({ run: null, report: null, reportStatus: 'idle' })
    } catch (e) {
      if (my !== ticket) return
      set({ status: 'error', error: errorMessage(e) })
    }
  },

  async selectRun(run) {
    const path = get().path
    if (!path) return
    const my = ++ticket
    set({ run, reportStatus: 'loading', error: null })
    // Picking the added run makes it active: nothing is pending any more.
    if (get().added === run) set({ added: null, addedReport: null })
    // The Advisor's diagnosis is asked for beside the report, not after it is drawn (a trace
    // stores it, so it comes back at once): the Advisor asks for the same level, and gets it.
    const config = get().info?.runs.find((r) => r.run === run)?.config
    const level = config ? adviceLevel(config, get().level) : ''
    if (level) void useAdvice.getState().load(path, run, level)
    try {
      const report = await reports.load(path, run)
      if (my !== ticket) return
      const levels = report.levels.map((l) => l.name)
      const prevLevel = get().level
      const files = computeSourceFiles(report)
      const prevFile = get().file
      set({
        report,
        reportStatus: 'ready',
        level: prevLevel && levels.includes(prevLevel) ? prevLevel : (levels[0] ?? null),
        file: prevFile && files.includes(prevFile) ? prevFile : (files[0] ?? null),
        selection: null
      })
    } catch (e) {
      if (my !== ticket) return
      set({ reportStatus: 'error', error: errorMessage(e) })
    }
  },

  setLevel: (level) => set({ level }),
  setMetric: (metric) => set({ metric }),
  setShowNoise: (showNoise) => set({ showNoise }),
  setFile: (file) => set({ file, selection: null }),
  setTab: (tab) => set({ tab }),
  async compareWithSession(path) {
    try {
      const other = await stride().openSession({ path })
      const latest = other.runs.length > 0 ? Math.max(...other.runs.map((r) => r.run)) : null
      if (latest === null) throw new Error(`${path} has no simulation run to compare with; simulate it first.`)
      await get().setBaseline({ session: other.path, run: latest })
    } catch (e) {
      set({ baselineStatus: 'error', baselineError: errorMessage(e) })
    }
  },

  async setBaseline(baseline) {
    const my = ++baselineTicket
    if (!baseline) return void set({ baseline: null, baselineReport: null, baselineStatus: 'idle', baselineError: null })
    // The run on screen (a what-if's baseline): its report is here already.
    const shown = shownReport(get(), baseline.session, baseline.run)
    if (shown) return void set({ baseline, baselineReport: shown, baselineStatus: 'ready', baselineError: null })
    set({ baseline, baselineStatus: 'loading', baselineError: null })
    try {
      const report = await reports.load(baseline.session, baseline.run)
      if (my === baselineTicket) set({ baselineReport: report, baselineStatus: 'ready' })
    } catch (e) {
      if (my === baselineTicket) set({ baselineReport: null, baselineStatus: 'error', baselineError: errorMessage(e) })
    }
  },

  select(file, line, reference = null) {
    if (file === null || line === null) {
      // No line information: keep only the row highlighted.
      set({ selection: reference ? { file: '', line: 0, seq: Date.now(), reference } : null })
      return
    }
    set({ file, selection: { file, line, seq: (get().selection?.seq ?? 0) + 1, reference } })
  },

  async showAdded(run) {
    const path = get().path
    if (!path) return
    set({ added: run, addedReport: null })
    try {
      const report = await reports.load(path, run)
      if (get().added === run && get().path === path) set({ addedReport: report })
    } catch (e) {
      if (get().added === run) set({ added: null, error: errorMessage(e) })
    }
  },

  async makeActive() {
    const run = get().added
    if (run !== null) await get().selectRun(run)
  },

  dismissAdded: () => set({ added: null, addedReport: null }),

  async renameRun(run, label) {
    const path = get().path
    if (!path) return
    try {
      const runs = await stride().renameRun({ session: path, run, label })
      const info = get().info
      if (info && get().path === path) set({ info: { ...info, runs } })
    } catch (e) {
      set({ error: errorMessage(e) })
    }
  },

  close() {
    ticket++
    set({ path: null, info: null, run: null, report: null, status: 'idle', reportStatus: 'idle', error: null, selection: null, file: null, added: null, addedReport: null })
    void get().setBaseline(null)
  }
}))
