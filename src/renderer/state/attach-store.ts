/**
 * The attach dialog's data: the live process list (refreshed while the dialog is open), the
 * chosen process's modules and functions, and starting the attach job (which then runs in
 * the job store like any trace). The only API caller for attaching.
 */
import { create } from 'zustand'
import type { ApiInput } from '../../shared/api'
import type { ProcessEntry, ProcessInspection } from '../../shared/domain'
import { useJobs } from './job-store'
import { errorMessage, stride } from './stride'

const REFRESH_MS = 2000

interface AttachState {
  open: boolean
  processes: ProcessEntry[]
  source: 'frida' | 'proc' | null
  /** Why Frida cannot trace here (the install hint), known as soon as the list arrives. */
  fridaMissing: string | null
  listError: string | null
  selectedPid: number | null
  inspection: ProcessInspection | null
  inspecting: boolean
  inspectError: string | null
  starting: boolean
  startError: string | null
  openDialog(): void
  closeDialog(): void
  refresh(): Promise<void>
  select(pid: number, module?: string | null): Promise<void>
  start(input: ApiInput<'startAttach'>, label: string): Promise<boolean>
  clearStartError(): void
}

let timer: ReturnType<typeof setInterval> | null = null

export const useAttach = create<AttachState>((set, get) => ({
  open: false,
  processes: [],
  source: null,
  fridaMissing: null,
  listError: null,
  selectedPid: null,
  inspection: null,
  inspecting: false,
  inspectError: null,
  starting: false,
  startError: null,

  openDialog() {
    set({ open: true, startError: null })
    void get().refresh()
    timer ??= setInterval(() => void get().refresh(), REFRESH_MS)
  },

  closeDialog() {
    if (timer) clearInterval(timer)
    timer = null
    set({ open: false, selectedPid: null, inspection: null, inspectError: null, startError: null })
  },

  async refresh() {
    try {
      const list = await stride().listProcesses({})
      if (get().open) set({ processes: list.processes, source: list.source, fridaMissing: list.fridaMissing, listError: null })
    } catch (e) {
      set({ listError: errorMessage(e) })
    }
  },

  async select(pid, module = null) {
    set({ selectedPid: pid, inspecting: true, inspectError: null, startError: null, ...(module ? {} : { inspection: null }) })
    try {
      const inspection = await stride().inspectProcess({ pid, module })
      if (get().selectedPid === pid) set({ inspection, inspecting: false })
    } catch (e) {
      if (get().selectedPid === pid) set({ inspecting: false, inspectError: errorMessage(e) })
    }
  },

  async start(input, label) {
    set({ starting: true, startError: null })
    try {
      const { jobId } = await stride().startAttach(input)
      // From here the job store follows the job: progress banner, cancel, opening the session.
      useJobs.setState({ active: { jobId, kind: 'trace', program: label, functions: input.functions, status: 'running', progress: null, finished: null, failed: null, cancelling: false } })
      set({ starting: false })
      return true
    } catch (e) {
      set({ starting: false, startError: errorMessage(e) })
      return false
    }
  },

  clearStartError: () => set({ startError: null })
}))
