/**
 * "Launch program": choose an example or a binary, the functions to trace, a limit and the
 * cache to simulate, then start the trace job. Validation mirrors the API's schemas so the
 * backend's errors are the exception, not the way users learn the rules.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { StartFooter } from '../components/StartFooter'
import type { ExampleProgram } from '../../shared/domain'
import { BrowseButton } from '../components/FileBrowserDialog'
import { CacheLevelsEditor } from '../components/CacheLevelsEditor'
import { Dialog } from '../components/Dialog'
import { ExampleChoices } from '../components/ExampleChoices'
import { FunctionPicker } from '../components/FunctionPicker'
import { splitArgs } from '../logic/args'
import { HostCachesLine } from '../components/HostCachesLine'
import { hostDrafts, levelDraft, parseCacheForm, parseMaxEvents } from '../logic/cache-form'
import { useHostLevels } from '../state/host-store'
import { useJobs } from '../state/job-store'
import { useLaunch } from '../state/launch-store'
import { useRecent } from '../state/recent-store'
import { useProgramSymbols } from '../state/use-program-symbols'
import { useHot } from '../state/hot-store'
import { pickerHeat } from '../logic/hot-picker'
import { formatCount } from '../logic/format'

type Source = 'example' | 'custom'

export function LaunchDialog() {
  const { examples, examplesLoaded, examplesError, initialExample, closeDialog } = useLaunch()
  // First-time users (nothing recorded yet) are offered the bundled examples first.
  const firstTime = useRecent((s) => s.items.every((i) => !i.exists))
  const { start, starting, startError, clearStartError } = useJobs()

  const [source, setSource] = useState<Source>(initialExample || firstTime ? 'example' : 'custom')
  const [exampleName, setExampleName] = useState<string | null>(initialExample)
  const [programPath, setProgramPath] = useState('')
  const [argsText, setArgsText] = useState('')
  const [functions, setFunctions] = useState<string[]>([])
  const [maxEventsText, setMaxEventsText] = useState('')
  // This machine's D1 and LL (as Cachegrind simulates them) until the user or an example changes them.
  const { host, hostError, levels, setLevels } = useHostLevels()
  const [cachegrind, setCachegrind] = useState(false)
  const [followCalls, setFollowCalls] = useState(false)
  const [stopAtLimit, setStopAtLimit] = useState(false)
  const [formError, setFormError] = useState<string | null>(null)

  const example: ExampleProgram | undefined = examples.find((e) => e.name === exampleName)
  const program = source === 'example' ? (example?.program ?? '') : programPath
  const symbols = useProgramSymbols(program, source === 'example' ? 0 : 400)

  // Preselect the example's interesting functions whenever the example changes.
  useEffect(() => {
    if (source === 'example' && example) {
      setFunctions(example.functions)
      setArgsText('')
      // The cache the example was written for (e.g. METRIC 10.3's 128K 2-way, 128-byte lines).
      if (example.suggestedCache.length > 0) {
        setLevels(example.suggestedCache.map(levelDraft))
      }
    }
  }, [source, example])

  useEffect(() => clearStartError, [clearStartError])
  // An example built on first use (reading its symbols built it): its cards say so from now on.
  const exampleJustBuilt = source === 'example' && example !== undefined && !example.built && symbols.status === 'ready'
  useEffect(() => {
    if (exampleJustBuilt) void useLaunch.getState().loadExamples()
  }, [exampleJustBuilt])

  const canStart = program.trim() !== '' && !starting
  const debugHint = symbols.status === 'ready' && !symbols.symbols.hasDebugInfo ? symbols.symbols.debugInfoHint : null
  const functionList = useMemo(() => (symbols.status === 'ready' ? symbols.symbols.functions : []), [symbols])

  // "Find hot functions": a whole-program pass with this machine's caches, ranking the picker.
  const hot = useHot((s) => s.state)
  const hotHere = hot.status !== 'idle' && hot.program === program.trim() ? hot : null
  const heat = useMemo(() => (hotHere?.status === 'ready' ? pickerHeat(functionList, hotHere.ranked) : null), [hotHere, functionList])
  // A pass still running when the dialog closes is cancelled, and its ranking forgotten.
  useEffect(
    () => () => {
      void useHot.getState().cancel()
      useHot.getState().reset()
    },
    []
  )
  function findHot() {
    setFormError(null)
    const config = host?.config ?? (levels ? parseCacheForm(levels, false) : null)
    if (!config || ('ok' in config && !config.ok)) return setFormError("Still reading this machine's caches; try again in a moment.")
    void useHot.getState().find(program.trim(), splitArgs(argsText), 'ok' in config ? config.config : config)
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault()
    await launch(functions)
  }

  async function launch(chosen: string[]) {
    setFormError(null)
    clearStartError()
    const max = parseMaxEvents(maxEventsText)
    if (!max.ok) return setFormError(max.error)
    if (!levels) return setFormError("Still reading this machine's caches; try again in a moment.")
    const cache = parseCacheForm(levels, cachegrind)
    if (!cache.ok) return setFormError(cache.error)
    const ok = await start({
      program: program.trim(),
      args: splitArgs(argsText),
      functions: chosen,
      maxEvents: max.value,
      followCalls: followCalls && chosen.length > 0,
      afterLimit: stopAtLimit ? 'stop' : 'detach',
      simulate: cache.config
    })
    if (ok) closeDialog()
  }

  const error = formError ?? startError
  return (
    <Dialog
      title="Launch program"
      onClose={closeDialog}
      testId="launch-dialog"
      className="launch-dialog"
      footer={<StartFooter error={error} errorTestId="launch-error" onClose={closeDialog} form="launch-form" disabled={!canStart} starting={starting} label="Start trace" testId="start-trace" />}
    >
      <form id="launch-form" onSubmit={onSubmit} className="launch-form">
        <fieldset className="field-group">
          <legend>Program</legend>
          <div className="segmented" role="radiogroup" aria-label="Program source">
            <label className={source === 'example' ? 'is-on' : ''}>
              <input type="radio" name="source" checked={source === 'example'} onChange={() => setSource('example')} data-testid="source-example" />
              Bundled example
            </label>
            <label className={source === 'custom' ? 'is-on' : ''}>
              <input type="radio" name="source" checked={source === 'custom'} onChange={() => setSource('custom')} data-testid="source-custom" />
              Your program
            </label>
          </div>

          {source === 'example' ? (
            examplesError ? (
              <p className="form-error" role="alert">Could not list the examples: {examplesError}</p>
            ) : !examplesLoaded ? (
              <p className="muted">Loading examples…</p>
            ) : examples.length === 0 ? (
              <p className="muted">No bundled examples were found.</p>
            ) : (
              <ExampleChoices examples={examples} selected={exampleName} onSelect={setExampleName} />
            )
          ) : (
            <div className="field-row">
              <label className="field grow">
                <span>Program path</span>
                <input
                  value={programPath}
                  onChange={(e) => setProgramPath(e.target.value)}
                  placeholder="/path/to/program (built with -g)"
                  spellCheck={false}
                  autoFocus
                  data-testid="program-path"
                />
              </label>
              <BrowseButton purpose="program" onPick={setProgramPath} testId="browse-program" />
              <label className="field grow">
                <span>Arguments</span>
                <input value={argsText} onChange={(e) => setArgsText(e.target.value)} placeholder='e.g. 1024 "two words"' spellCheck={false} data-testid="program-args" />
              </label>
            </div>
          )}
        </fieldset>

        <fieldset className="field-group">
          <legend>Functions to trace</legend>
          {symbols.status === 'idle' && <p className="muted">Choose a program to list its functions.</p>}
          {symbols.status === 'loading' && (
            <p className="muted" data-testid="symbols-loading">
              {source === 'example' && example && !example.built ? `Building ${example.name} (first use), then reading its symbols…` : 'Reading symbols…'}
            </p>
          )}
          {symbols.status === 'error' && symbols.error !== startError && (
            <p className="form-error" role="alert" data-testid="inspect-error">
              {symbols.error}
            </p>
          )}
          {debugHint && (
            <p className="notice warning" data-testid="debug-info-hint">
              <strong>No debug information: </strong>
              {debugHint}
            </p>
          )}
          {symbols.status === 'ready' && (
            <div className="hot-bar" data-testid="hot-bar">
              {hotHere?.status === 'running' ? (
                <>
                  <span className="muted small" data-testid="hot-progress" aria-live="polite">
                    Tracing the whole program with this machine's caches… {formatCount(hotHere.events)} accesses
                  </span>
                  <button type="button" className="button small" onClick={() => void useHot.getState().cancel()} disabled={hotHere.cancelling || hotHere.jobId === null}>
                    {hotHere.cancelling ? 'Cancelling…' : 'Cancel'}
                  </button>
                </>
              ) : (
                <button type="button" className="button small" onClick={findHot} disabled={!canStart} data-testid="find-hot" title="Trace the whole program once with this machine's caches and rank its functions by misses">
                  {hotHere?.status === 'ready' ? 'Find hot functions again' : 'Find hot functions'}
                </button>
              )}
              {heat?.hottest && (
                <button
                  type="button"
                  className="button small primary"
                  disabled={starting}
                  onClick={() => {
                    setFunctions([heat.hottest!])
                    void launch([heat.hottest!])
                  }}
                  data-testid="trace-hottest"
                >
                  Trace the hottest: <code>{functionList.find((f) => f.name === heat.hottest)?.demangled ?? heat.hottest}</code>
                </button>
              )}
              {hotHere?.status === 'ready' && (
                <p className="muted small" data-testid="hot-note">
                  Ranked by {hotHere.ranked.level} misses of a whole-program run ({formatCount(hotHere.ranked.totalMisses)} in all{host ? `; ${host.summary}` : ''}). Each function's own accesses, not its callees': the trace records no calls.
                  {!heat?.hottest && ' None of the listed functions missed.'}
                </p>
              )}
              {hotHere?.status === 'error' && (
                <p className="form-error" role="alert" data-testid="hot-error">
                  {hotHere.error}
                </p>
              )}
            </div>
          )}
          {symbols.status === 'ready' && <FunctionPicker functions={functionList} selected={functions} onChange={setFunctions} heat={heat} />}
          {symbols.status === 'ready' && functions.length === 0 && (
            <p className="muted small">No function chosen: every access of the program is traced (slow for large programs).</p>
          )}
          {functions.length > 0 && (
            <label className="checkbox">
              <input type="checkbox" checked={followCalls} onChange={(e) => setFollowCalls(e.target.checked)} data-testid="follow-calls" />
              <span>Also record what they call</span>
            </label>
          )}
        </fieldset>

        <div className="field-columns">
          <fieldset className="field-group">
            <legend>Limit</legend>
            <label className="field">
              <span>Max events</span>
              <input
                value={maxEventsText}
                onChange={(e) => setMaxEventsText(e.target.value)}
                placeholder="no limit"
                inputMode="numeric"
                data-testid="max-events"
              />
            </label>
            <p className="muted small">Recording stops after this many accesses and keeps what it has; the program runs on to its end at full speed.</p>
            <label className="checkbox">
              <input type="checkbox" checked={stopAtLimit} onChange={(e) => setStopAtLimit(e.target.checked)} data-testid="stop-at-limit" />
              <span>Stop the program at the limit</span>
            </label>
          </fieldset>

          <fieldset className="field-group">
            <legend>Cache to simulate</legend>
            {levels ? (
              <CacheLevelsEditor levels={levels} cachegrindCompatible={cachegrind} onChange={setLevels} onCachegrindChange={setCachegrind} />
            ) : (
              <p className="muted">Reading this machine's caches…</p>
            )}
            <HostCachesLine host={host} error={hostError} onUse={host ? () => setLevels(hostDrafts(host)) : undefined} />
          </fieldset>
        </div>
      </form>
    </Dialog>
  )
}
