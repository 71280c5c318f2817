/**
 * "Attach…": pick a running process from a live list (filter as you type), see its modules
 * and functions (hottest guesses first), choose functions, limits, a sampling mode (Mohan
 * section 4) and a cache, and Start. Frida traces the chosen functions and detaches; the
 * process keeps running. Or launch a program under Frida (spawned suspended, instrumented,
 * resumed) when it must be caught from the start. Errors (Frida missing, permissions,
 * process gone) show here.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import type { ProcessFunction } from '../../shared/domain'
import { CacheLevelsEditor } from '../components/CacheLevelsEditor'
import { StartFooter } from '../components/StartFooter'
import { Dialog } from '../components/Dialog'
import { FunctionPicker } from '../components/FunctionPicker'
import { Segmented } from '../components/Segmented'
import { DEFAULT_SAMPLING, filterProcessList, parseSampling, parseSeconds, stepProcess, type SamplingDraft, type SamplingKind } from '../logic/attach-form'
import { splitArgs } from '../logic/args'
import { HostCachesLine } from '../components/HostCachesLine'
import { hostDrafts, parseCacheForm, parseMaxEvents } from '../logic/cache-form'
import { useHostLevels } from '../state/host-store'
import { baseName } from '../logic/format'
import { useAttach } from '../state/attach-store'
import { useProgramSymbols } from '../state/use-program-symbols'

const SUGGESTED = 6

const SAMPLING_OPTIONS: { value: SamplingKind; label: string }[] = [
  { value: 'complete', label: 'Complete' },
  { value: 'max-samples', label: 'Max samples' },
  { value: 'periodic', label: 'Periodic' },
  { value: 'convergence', label: 'Convergence' }
]

type Mode = 'attach' | 'spawn'

export function AttachDialog() {
  const { processes, source, fridaMissing, listError, selectedPid, inspection, inspecting, inspectError, starting, startError, closeDialog, select, start, clearStartError } = useAttach()
  const [filter, setFilter] = useState('')
  const [functions, setFunctions] = useState<string[]>([])
  const [maxEventsText, setMaxEventsText] = useState('1M')
  const [secondsText, setSecondsText] = useState('')
  const [sampling, setSampling] = useState<SamplingDraft>(DEFAULT_SAMPLING)
  // This machine's D1 and LL (as Cachegrind simulates them) until the user changes them.
  const { host, hostError, levels, setLevels } = useHostLevels()
  const [cachegrind, setCachegrind] = useState(false)
  const [formError, setFormError] = useState<string | null>(null)
  const [mode, setMode] = useState<Mode>('attach')
  const [programPath, setProgramPath] = useState('')
  const [argsText, setArgsText] = useState('')
  const listRef = useRef<HTMLDivElement>(null)
  const symbols = useProgramSymbols(mode === 'spawn' ? programPath : '', 400)

  const shown = useMemo(() => filterProcessList(processes, filter), [processes, filter])
  const selected = processes.find((p) => p.pid === selectedPid) ?? null
  // Deeper loop nests with source lines first: the likely hot spots.
  const suggested = useMemo<ProcessFunction[]>(() => (inspection?.functions ?? []).filter((f) => f.file && f.loopDepth > 0).slice(0, SUGGESTED), [inspection])

  useEffect(() => setFunctions([]), [selectedPid, mode])
  useEffect(() => clearStartError, [clearStartError])

  // Arrows, Page Up/Down and Home/End move the selection through the filtered rows, from
  // the filter box or the list; the chosen row is scrolled into view.
  function onListKey(e: KeyboardEvent) {
    if (!['ArrowDown', 'ArrowUp', 'PageDown', 'PageUp', 'Home', 'End'].includes(e.key)) return
    if (e.target instanceof HTMLInputElement && (e.key === 'Home' || e.key === 'End')) return
    const pid = stepProcess(shown, selectedPid, e.key)
    if (pid === null || pid === selectedPid) return
    e.preventDefault()
    void select(pid)
    listRef.current?.querySelector(`[data-testid="process-${pid}"]`)?.scrollIntoView({ block: 'nearest' })
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault()
    setFormError(null)
    clearStartError()
    if (mode === 'attach' && selectedPid === null) return setFormError('Pick a process from the list first.')
    if (mode === 'spawn' && programPath.trim() === '') return setFormError('Give the program to launch.')
    if (functions.length === 0) return setFormError('Choose at least one function to trace.')
    const max = parseMaxEvents(maxEventsText)
    if (!max.ok) return setFormError(max.error)
    const seconds = parseSeconds(secondsText)
    if (!seconds.ok) return setFormError(seconds.error)
    const samplingMode = parseSampling(sampling)
    if (!samplingMode.ok) return setFormError(samplingMode.error)
    if (!levels) return setFormError("Still reading this machine's caches; try again in a moment.")
    const cache = parseCacheForm(levels, cachegrind)
    if (!cache.ok) return setFormError(cache.error)
    const target = mode === 'attach' ? { kind: 'attach' as const, pid: selectedPid! } : { kind: 'spawn' as const, program: programPath.trim(), args: splitArgs(argsText) }
    const label = mode === 'attach' ? `${selected?.name ?? 'process'} (PID ${selectedPid})` : baseName(programPath.trim())
    const ok = await start({ target, functions, maxEvents: max.value, maxSeconds: seconds.value, sampling: samplingMode.value, simulate: cache.config }, label)
    if (ok) closeDialog()
  }

  const error = formError ?? startError
  const set = (patch: Partial<SamplingDraft>) => setSampling((s) => ({ ...s, ...patch }))
  return (
    <Dialog
      title={mode === 'spawn' ? 'Launch under Frida' : 'Attach to a process'}
      onClose={closeDialog}
      testId="attach-dialog"
      className="launch-dialog attach-dialog"
      footer={
        <StartFooter error={error} errorTestId="attach-error" onClose={closeDialog} form="attach-form" disabled={starting || (mode === 'attach' ? selectedPid === null : programPath.trim() === '')} starting={starting} label="Start" testId="start-attach" />
      }
    >
      <form id="attach-form" onSubmit={onSubmit} className="launch-form">
        {fridaMissing && (
          <p className="notice warning" role="status" data-testid="frida-missing">
            <strong>Frida is needed to trace: </strong>
            {fridaMissing} You can still browse processes and functions.
          </p>
        )}
        <Segmented<Mode>
          label="Target"
          value={mode}
          options={[
            { value: 'attach', label: 'Running process' },
            { value: 'spawn', label: 'Launch under Frida' }
          ]}
          onChange={setMode}
          testId="attach-mode"
        />
        {mode === 'spawn' && (
          <fieldset className="field-group" data-testid="spawn-target">
            <legend>Program (started suspended, instrumented, then resumed)</legend>
            <div className="field-row">
              <label className="field grow">
                <span>Program path</span>
                <input value={programPath} onChange={(e) => setProgramPath(e.target.value)} placeholder="/path/to/program (built with -g)" spellCheck={false} data-testid="spawn-program" />
              </label>
              <label className="field grow">
                <span>Arguments</span>
                <input value={argsText} onChange={(e) => setArgsText(e.target.value)} spellCheck={false} data-testid="spawn-args" />
              </label>
            </div>
            {symbols.status === 'loading' && <p className="muted">Reading symbols…</p>}
            {symbols.status === 'error' && (
              <p className="form-error" role="alert">
                {symbols.error}
              </p>
            )}
            {symbols.status === 'ready' && <FunctionPicker functions={symbols.symbols.functions} selected={functions} onChange={setFunctions} />}
          </fieldset>
        )}
        {mode === 'attach' && (
          <fieldset className="field-group">
            <legend>Process</legend>
            <div className="function-picker-bar">
              <input type="search" placeholder="Filter by PID, name, user or command…" aria-label="Filter processes" value={filter} onChange={(e) => setFilter(e.target.value)} onKeyDown={onListKey} autoFocus data-testid="process-filter" />
              <span className="muted small" data-testid="process-count">
                {shown.length} of {processes.length}
                {source === 'proc' ? ' · from /proc' : source === 'frida' ? ' · from Frida' : ''}
              </span>
            </div>
            {listError && (
              <p className="form-error" role="alert">
                Could not list processes: {listError}
              </p>
            )}
            <div className="process-list" role="listbox" aria-label="Processes" tabIndex={0} onKeyDown={onListKey} ref={listRef} data-testid="process-list">
              <div className="process-row process-head" aria-hidden="true">
                <span>PID</span>
                <span>Name</span>
                <span>User</span>
                <span>Command line</span>
              </div>
              {shown.map((p) => (
                <button
                  type="button"
                  key={p.pid}
                  tabIndex={-1}
                  role="option"
                  aria-selected={p.pid === selectedPid}
                  className={`process-row${p.pid === selectedPid ? ' is-selected' : ''}`}
                  disabled={p.self}
                  title={p.self ? 'Stride itself cannot be traced' : p.command}
                  onClick={() => void select(p.pid)}
                  data-testid={`process-${p.pid}`}
                >
                  <span className="num">{p.pid}</span>
                  <span>{p.name}</span>
                  <span className="muted">{p.user}</span>
                  <code className="muted process-command">{p.command}</code>
                </button>
              ))}
              {shown.length === 0 && <p className="muted empty-row">No process matches “{filter}”.</p>}
            </div>
          </fieldset>
        )}

        {mode === 'attach' && selectedPid !== null && (
          <fieldset className="field-group" data-testid="process-details">
            <legend>
              Functions of {selected?.name ?? 'the process'} (PID {selectedPid})
            </legend>
            {inspecting && !inspection && <p className="muted">Reading its modules and symbols…</p>}
            {inspectError && (
              <p className="form-error" role="alert" data-testid="inspect-error">
                {inspectError}
              </p>
            )}
            {inspection && (
              <>
                <label className="field">
                  <span>Module ({inspection.modules.length} loaded)</span>
                  <select value={inspection.module} onChange={(e) => void select(selectedPid, e.target.value)} data-testid="module-select">
                    {inspection.modules.map((m) => (
                      <option key={m.path} value={m.path}>
                        {baseName(m.path)}
                        {m.main ? ' (executable)' : ''} · {m.base}
                      </option>
                    ))}
                  </select>
                </label>
                {!inspection.hasDebugInfo && inspection.debugInfoHint && (
                  <p className="notice warning">
                    <strong>No debug information: </strong>
                    {inspection.debugInfoHint}
                  </p>
                )}
                {suggested.length > 0 && (
                  <p className="suggested-functions small" data-testid="suggested-functions">
                    <span className="muted">Likely hot (loop nests): </span>
                    {suggested.map((f) => (
                      <button
                        type="button"
                        key={f.name}
                        className={`chip-button${functions.includes(f.name) ? ' is-on' : ''}`}
                        onClick={() => setFunctions((cur) => (cur.includes(f.name) ? cur : [...cur, f.name]))}
                        title={`${f.file ? baseName(f.file) : ''}${f.line ? `:${f.line}` : ''} · loop depth ${f.loopDepth}`}
                      >
                        {f.name}
                      </button>
                    ))}
                  </p>
                )}
                <FunctionPicker functions={inspection.functions} selected={functions} onChange={setFunctions} />
              </>
            )}
          </fieldset>
        )}

        <div className="field-columns">
          <fieldset className="field-group">
            <legend>Limits</legend>
            <div className="attach-limits">
              <label className="field">
                <span>Max events</span>
                <input value={maxEventsText} onChange={(e) => setMaxEventsText(e.target.value)} placeholder="no limit" inputMode="numeric" data-testid="attach-max-events" />
              </label>
              <label className="field">
                <span>Max seconds</span>
                <input value={secondsText} onChange={(e) => setSecondsText(e.target.value)} placeholder="no limit" inputMode="decimal" data-testid="attach-seconds" />
              </label>
            </div>
            <p className="muted small">Then Stride removes its instrumentation and detaches; the process keeps running at full speed.</p>
          </fieldset>

          <fieldset className="field-group">
            <legend>Sampling</legend>
            <Segmented label="Sampling mode" value={sampling.kind} options={SAMPLING_OPTIONS} onChange={(kind) => set({ kind })} testId="sampling-mode" />
            {sampling.kind === 'complete' && <p className="muted small">Every call of the chosen functions, until a limit.</p>}
            {sampling.kind === 'max-samples' && (
              <label className="field">
                <span>Calls sampled per function, then its instrumentation is removed</span>
                <input value={sampling.samples} onChange={(e) => set({ samples: e.target.value })} inputMode="numeric" data-testid="sampling-samples" />
              </label>
            )}
            {sampling.kind === 'periodic' && (
              <div className="field-row">
                <label className="field">
                  <span>Sample period (ms)</span>
                  <input value={sampling.periodMs} onChange={(e) => set({ periodMs: e.target.value })} inputMode="numeric" />
                </label>
                <label className="field">
                  <span>Off interval (ms), all instrumentation removed</span>
                  <input value={sampling.intervalMs} onChange={(e) => set({ intervalMs: e.target.value })} inputMode="numeric" />
                </label>
              </div>
            )}
            {sampling.kind === 'convergence' && (
              <label className="field">
                <span>Stop a function when its stream metrics change by less than (fraction)</span>
                <input value={sampling.threshold} onChange={(e) => set({ threshold: e.target.value })} inputMode="decimal" data-testid="sampling-threshold" />
              </label>
            )}
          </fieldset>
        </div>

        <fieldset className="field-group">
          <legend>Cache to simulate</legend>
          {levels ? (
            <CacheLevelsEditor levels={levels} cachegrindCompatible={cachegrind} onChange={setLevels} onCachegrindChange={setCachegrind} />
          ) : (
            <p className="muted">Reading this machine's caches…</p>
          )}
          <HostCachesLine host={host} error={hostError} onUse={host ? () => setLevels(hostDrafts(host)) : undefined} />
        </fieldset>
      </form>
    </Dialog>
  )
}
