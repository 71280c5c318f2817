/**
 * What-if: change the hierarchy, pad data structures or transform loops, re-simulate the same trace (no re-run
 * of the program), and land on the new run compared with this one (shown, not made active).
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react'
import type { RunReport } from '../../shared/domain'
import { CacheLevelsEditor } from '../components/CacheLevelsEditor'
import { LayoutFiltersEditor } from '../components/LayoutFiltersEditor'
import { LoopTransformsEditor } from '../components/LoopTransformsEditor'
import { TlbLevelsEditor } from '../components/TlbLevelsEditor'
import { parseTlbForm, tlbDraft, type TlbLevelDraft } from '../logic/tlb-form'
import { PREFETCH_TIMING, prefetchOutcomes } from '../logic/prefetch-note'
import { parseTransformForm, transformDraft, type LoopTransformDraft } from '../logic/transform-form'
import { HostCachesLine } from '../components/HostCachesLine'
import { hostDrafts, levelDraft, parseCacheForm, type CacheLevelDraft } from '../logic/cache-form'
import { useHost, useHostHierarchy } from '../state/host-store'
import { layoutDraft, parseLayoutForm, type LayoutFilterDraft } from '../logic/layout-form'
import { useJobs } from '../state/job-store'
import { runWhatIf, useWhatIfDraft, type WhatIfChange } from '../state/what-if'

interface Props {
  report: RunReport
}

function draftsOf(report: RunReport, proposal: WhatIfChange | null) {
  return {
    levels: (proposal?.levels ?? report.config.levels).map(levelDraft),
    tlb: (proposal?.tlb ?? report.config.tlb ?? []).map(tlbDraft),
    layout: (proposal?.layout ?? report.config.layout ?? []).map(layoutDraft),
    transforms: (proposal?.transforms ?? report.config.transforms ?? []).map(transformDraft)
  }
}

export function WhatIfView({ report }: Props) {
  const { proposal, reason, seq, clear } = useWhatIfDraft()
  const running = useJobs((s) => s.active?.status === 'running' || s.starting)
  const startError = useJobs((s) => s.startError)
  const initial = useMemo(() => draftsOf(report, proposal), [report, proposal, seq]) // eslint-disable-line react-hooks/exhaustive-deps
  const [levels, setLevels] = useState<CacheLevelDraft[]>(initial.levels)
  const [tlb, setTlb] = useState<TlbLevelDraft[]>(initial.tlb)
  const [layout, setLayout] = useState<LayoutFilterDraft[]>(initial.layout)
  const [transforms, setTransforms] = useState<LoopTransformDraft[]>(initial.transforms)
  const [error, setError] = useState<string | null>(null)
  // The form starts from this run's hierarchy (a what-if is a change to it); this machine's
  // D1 and LL are one click away.
  const host = useHostHierarchy()
  const hostError = useHost((s) => s.error)

  // A new proposal (advisor) or another run replaces the form.
  useEffect(() => {
    setLevels(initial.levels)
    setTlb(initial.tlb)
    setLayout(initial.layout)
    setTransforms(initial.transforms)
    setError(null)
  }, [initial])

  const variables = report.variables ?? []
  const outcomes = useMemo(() => prefetchOutcomes(report), [report])
  // The source files a transform may name: those of the run's references.
  const files = useMemo(() => [...new Set(report.references.map((r) => r.file).filter((f): f is string => f !== null))].sort(), [report])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const cache = parseCacheForm(levels, report.config.cachegrindCompatible)
    if (!cache.ok) return setError(cache.error)
    const tlbLevels = parseTlbForm(tlb)
    if (!tlbLevels.ok) return setError(tlbLevels.error)
    const pads = parseLayoutForm(layout, variables)
    if (!pads.ok) return setError(pads.error)
    const loops = parseTransformForm(transforms, files)
    if (!loops.ok) return setError(loops.error)
    setError(null)
    await runWhatIf({ levels: cache.config.levels, tlb: tlbLevels.tlb, layout: pads.layout, transforms: loops.transforms })
  }

  return (
    <form className="whatif" onSubmit={(e) => void submit(e)} aria-label="What-if simulation" data-testid="whatif-form">
      <p className="muted">
        Re-simulates this session's trace with the changes below: nothing is re-run. When it is done, Stride shows the new run in
        the Compare tab, before (run {report.run}, the one shown now) against after, labelled by what changed; run {report.run} stays
        the active run until you make the new one active. Once it is, the Source tab's <em>Δ misses</em> paint shows the same per
        line.
      </p>
      {reason && (
        <div className="notice info" data-testid="whatif-reason">
          <strong>Suggested: </strong>
          {reason}{' '}
          <button type="button" className="link-button" onClick={clear}>
            Start from run {report.run} instead
          </button>
        </div>
      )}
      <fieldset className="field-group">
        <legend>Cache hierarchy</legend>
        <CacheLevelsEditor levels={levels} cachegrindCompatible={report.config.cachegrindCompatible} onChange={setLevels} onCachegrindChange={() => undefined} hideCachegrind allOptions />
        <HostCachesLine host={host} error={hostError} onUse={host ? () => setLevels(hostDrafts(host)) : undefined} />
        <p className="muted small" data-testid="prefetch-timing">
          {PREFETCH_TIMING}
          {outcomes.length > 0 && ` Run ${report.run}: ${outcomes.join('; ')}.`}
        </p>
        {report.config.cachegrindCompatible && (
          <p className="muted small">Run {report.run} counts as Cachegrind does, which needs LRU, write-allocate and no prefetcher at every level.</p>
        )}
      </fieldset>
      <fieldset className="field-group">
        <legend>Data TLB</legend>
        <TlbLevelsEditor levels={tlb} onChange={setTlb} />
      </fieldset>
      <fieldset className="field-group">
        <legend>Padding (SIGMA layout filters)</legend>
        {variables.length === 0 ? (
          <p className="muted small">This session has no data-structure information (traced before correlation), so padding cannot be placed.</p>
        ) : (
          <LayoutFiltersEditor filters={layout} variables={variables} onChange={setLayout} />
        )}
      </fieldset>
      <fieldset className="field-group">
        <legend>Loop transforms (code changes on the recorded nests)</legend>
        <LoopTransformsEditor transforms={transforms} files={files} onChange={setTransforms} />
      </fieldset>
      {(error ?? startError) && (
        <div className="notice error" role="alert" data-testid="whatif-error">
          {error ?? startError}
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="button" onClick={() => clear()} disabled={running}>
          Reset to run {report.run}
        </button>
        <button type="submit" className="button primary" disabled={running} data-testid="run-whatif">
          {running ? 'A job is running…' : 'Run what-if'}
        </button>
      </div>
    </form>
  )
}
