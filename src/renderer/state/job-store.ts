/**
 * The trace or simulation (what-if) job this window started: live progress, cancel, and what happens at the end
 * (open the session, or show the failure). Events for all jobs arrive on one stream; we
 * follow only ours.
 */
import { create } from 'zustand'
import { jobOutputSchema, type ApiInput, type JobFailed, type JobFinished, type JobOutput, type JobProgress } from '../../shared/api'
import { appendOutput, emptyOutput, type ProgramOutputText } from '../logic/program-output'
import { useRecent } from './recent-store'
import { useSession } from './session-store'
import { errorMessage, stride } from './stride'

export interface ActiveJob {
  jobId: string
  kind: 'trace' | 'simulate'
  /** What the banner names: the traced program, or the session being re-simulated. */
  program: string
  /** The traced functions (a trace), for "waiting for f to be called". */
  functions: string[]
  status: 'running' | 'finished' | 'failed'
  progress: JobProgress | null
  finished: JobFinished | null
  failed: JobFailed | null
  cancelling: boolean
}

/**
 * What the program of the last trace this window started wrote (bounded): shown in the
 * running-job banner, then in the session view of the session it made.
 */
export interface ProgramOutputLog extends ProgramOutputText {
  jobId: string
  program: string
  /** The session the trace wrote, once it ended. */
  session: string | null
  done: boolean
}

interface JobState {
  active: ActiveJob | null
  output: ProgramOutputLog | null
  starting: boolean
  startError: string | null
  start(input: ApiInput<'startTrace'>): Promise<boolean>
  /** Re-simulate a session with another hierarchy or layout (a what-if); when done, shows the new run (a run of the open session: in Compare, not made active). */
  simulate(input: ApiInput<'simulate'>): Promise<boolean>
  cancel(): Promise<void>
  dismiss(): void
  clearStartError(): void
  /** Subscribe to the backend's job events; returns the unsubscribe function. */
  connect(): () => void
}

// Events can overtake startTrace's reply (a fast failure), so remember the latest
// events of jobs we do not know yet and replay them once the jobId is known.
type Early = { progress?: JobProgress; finished?: JobFinished; failed?: JobFailed; output?: ProgramOutputText }
const early = new Map<string, Early>()

function remember(jobId: string, patch: Early): void {
  early.set(jobId, { ...early.get(jobId), ...patch })
  if (early.size > 64) early.delete(early.keys().next().value as string)
}

export const useJobs = create<JobState>((set, get) => {
  const onOutput = (payload: JobOutput): void => {
    // Validated like every input: a malformed event is dropped, not shown.
    const parsed = jobOutputSchema.safeParse(payload)
    if (!parsed.success) return
    const o = parsed.data
    const log = get().output
    if (!log || log.jobId !== o.jobId) return void remember(o.jobId, { output: appendOutput(early.get(o.jobId)?.output ?? emptyOutput(), o) })
    set({ output: { ...log, ...appendOutput(log, o) } })
  }

  const outputEnds = (jobId: string, session: string | null): void => {
    const log = get().output
    if (log?.jobId === jobId) set({ output: { ...log, session, done: true } })
  }

  const onProgress = (p: JobProgress): void => {
    const a = get().active
    if (!a || a.jobId !== p.jobId) return void remember(p.jobId, { progress: p })
    if (a.status === 'running') set({ active: { ...a, progress: p } })
  }

  const onFinished = (f: JobFinished): void => {
    const a = get().active
    if (!a || a.jobId !== f.jobId) return void remember(f.jobId, { finished: f })
    outputEnds(f.jobId, f.session)
    // A cancelled what-if stored no run: stay on the current one and say so in the banner.
    if (f.session && !(a.kind === 'simulate' && f.run === null)) {
      // The session summary shows partial/stop reason from here on.
      set({ active: null })
      const whatIf = a.kind === 'simulate'
      const session = useSession.getState()
      // A what-if of the open session keeps its active run: the new run is shown, not chosen.
      const keepRun = whatIf && session.path === f.session && session.run !== null && f.run !== null
      const added = f.run
      void session.open(f.session, keepRun ? session.run : f.run)
      // A what-if ends on its result: the new run against the run it came from, in Compare. Its
      // figures are asked for beside the reopening (the run on screen stays), not after it.
      if (keepRun && added !== null) {
        session.setTab('compare')
        void session.showAdded(added)
      }
    } else {
      set({ active: { ...a, status: 'finished', finished: f, cancelling: false } })
    }
    void useRecent.getState().load()
  }

  const onFailed = (f: JobFailed): void => {
    const a = get().active
    if (!a || a.jobId !== f.jobId) return void remember(f.jobId, { failed: f })
    outputEnds(f.jobId, f.session)
    set({ active: { ...a, status: 'failed', failed: f, cancelling: false } })
    void useRecent.getState().load()
  }

  const begin = async (kind: ActiveJob['kind'], program: string, call: () => Promise<{ jobId: string }>, functions: string[] = []): Promise<boolean> => {
    set({ starting: true, startError: null })
    try {
      const { jobId } = await call()
      const seen = early.get(jobId)
      early.delete(jobId)
      set({
        starting: false,
        active: { jobId, kind, program, functions, status: 'running', progress: null, finished: null, failed: null, cancelling: false },
        // A trace's program output starts empty (a what-if runs no program: the last trace's stays).
        ...(kind === 'trace' ? { output: { jobId, program, session: null, done: false, ...(seen?.output ?? emptyOutput()) } } : {})
      })
      if (seen?.progress) onProgress(seen.progress)
      if (seen?.failed) onFailed(seen.failed)
      else if (seen?.finished) onFinished(seen.finished)
      return true
    } catch (e) {
      set({ starting: false, startError: errorMessage(e) })
      return false
    }
  }

  return {
    active: null,
    output: null,
    starting: false,
    startError: null,

    async start(input) {
      return begin('trace', input.program, () => stride().startTrace(input), input.functions ?? [])
    },

    async simulate(input) {
      return begin('simulate', input.session, () => stride().simulate(input))
    },

    async cancel() {
      const a = get().active
      if (!a || a.status !== 'running') return
      set({ active: { ...a, cancelling: true } })
      try {
        await stride().cancelJob({ jobId: a.jobId })
        // The job now ends with `finished` (partial) and we open what was kept.
      } catch (e) {
        const cur = get().active
        if (cur?.jobId === a.jobId)
          set({ active: { ...cur, cancelling: false, status: 'failed', failed: { jobId: a.jobId, kind: a.kind, error: errorMessage(e), session: null } } })
      }
    },

    dismiss: () => set({ active: null }),
    clearStartError: () => set({ startError: null }),

    connect() {
      const api = stride()
      const offs = [api.on('progress', onProgress), api.on('finished', onFinished), api.on('failed', onFailed), api.on('output', onOutput)]
      return () => offs.forEach((off) => off())
    }
  }
})
