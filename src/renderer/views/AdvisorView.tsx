/**
 * The Advisor tab: the backend's diagnoses of the run's hot references at one level (METRIC
 * Fig. 8, Mohan Table 1), each with its evidence numbers. A suggestion Stride can try without
 * recompiling has a button that runs it as a what-if; the new run is shown compared with this one
 * (this one stays active until the user makes the new one active).
 */
import { useEffect } from 'react'
import type { AdviceAction, AdviceItem, RunReport } from '../../shared/domain'
import { Segmented } from '../components/Segmented'
import { formatCount, formatPercent } from '../logic/format'
import { adviceLevel, useAdvice } from '../state/advice-store'
import { useJobs } from '../state/job-store'
import { useSession } from '../state/session-store'
import { runWhatIf, useWhatIfDraft, type WhatIfChange } from '../state/what-if'

const DIAGNOSIS_LABEL: Record<AdviceItem['diagnosis'], string> = {
  conflict: 'Conflict',
  capacity: 'Capacity',
  'large-stride': 'Large stride',
  streaming: 'Streaming',
  irregular: 'Irregular',
  pollution: 'Pollution',
  'low-spatial-reuse': 'Low spatial reuse',
  'pointer-chase': 'Pointer chase',
  gather: 'Indexed gather',
  tlb: 'TLB',
  'false-sharing': 'False sharing',
  'true-sharing': 'True sharing'
}

interface Props {
  session: string
  report: RunReport
}

export function AdvisorView({ session, report }: Props) {
  const s = useSession()
  const a = useAdvice()
  const busy = useJobs((j) => j.starting || j.active?.status === 'running')
  const cacheLevels = report.config.levels.map((l) => l.name)
  const level = adviceLevel(report.config, s.level)

  useEffect(() => {
    if (level) void a.load(session, report.run, level)
  }, [session, report.run, level]) // eslint-disable-line react-hooks/exhaustive-deps

  // A cores action is not a run of this session (runs are one hierarchy): it is shown as its command.
  const changeOf = (action: Exclude<AdviceAction, { kind: 'cores' }>): WhatIfChange => {
    switch (action.kind) {
      case 'layout':
        return { layout: [...(report.config.layout ?? []), ...action.layout] }
      case 'transform':
        return { transforms: [...(report.config.transforms ?? []), ...action.transforms] }
      case 'tlb':
        return { tlb: action.tlb }
      case 'levels':
        return { levels: action.levels }
    }
  }
  const tryAction = (action: Exclude<AdviceAction, { kind: 'cores' }>) => void runWhatIf(changeOf(action))
  const propose = useWhatIfDraft((d) => d.propose)
  const advice = a.status === 'ready' ? a.advice : null

  return (
    <div className="advisor-view" data-testid="advisor-view" data-run={advice?.run}>
      <div className="toolbar">
        {cacheLevels.length > 1 && (
          <Segmented label="Cache level" value={level} options={cacheLevels.map((l) => ({ value: l, label: l }))} onChange={s.setLevel} testId="advisor-level" />
        )}
        {advice && (
          <span className="muted small">
            {advice.examined} hot references examined at {advice.level}, most misses first · {formatCount(advice.totalMisses)} misses in all
          </span>
        )}
        {advice?.classesMissing && (
          <span className="muted small" data-testid="advisor-classes-missing">
            · {advice.classesMissing}
          </span>
        )}
        {advice?.classes && (
          <span className="muted small" data-testid="advisor-classes-note" title={`The fully associative ${advice.level} was fed ${advice.classes.source}.`}>
            · conflict = misses a fully associative {advice.level} of the same size would have hit
          </span>
        )}
      </div>
      {a.status === 'loading' && <p className="muted pad">Diagnosing run {report.run}…</p>}
      {a.status === 'error' && (
        <div className="notice error" role="alert">
          {a.error}
        </div>
      )}
      {advice && advice.items.length === 0 && (
        <div className="empty-state" data-testid="advisor-empty">
          <p>Nothing to advise at {advice.level}.</p>
          <p className="muted small">
            {advice.totalMisses === 0 ? 'This run has no misses at this level.' : 'The hot references show no pattern METRIC Fig. 8 or Mohan Table 1 relate to an optimization.'}
          </p>
        </div>
      )}
      {advice && advice.items.length > 0 && (
        <ol className="advice-list" data-testid="advice-list">
          {advice.items.map((item) => (
            <li key={`${item.diagnosis}:${item.references.join()}`} className={`advice-item advice-${item.diagnosis}`} data-testid="advice-item" data-diagnosis={item.diagnosis}>
              <div className="advice-head">
                <span className="advice-badge">{DIAGNOSIS_LABEL[item.diagnosis]}</span>
                <h3 className="advice-title">{item.title}</h3>
                <span className="muted small advice-misses">
                  {formatCount(item.misses)} misses · {formatPercent(item.share)} of {advice.level}
                </span>
              </div>
              <p className="small muted">
                {item.locations.map((loc, k) => (
                  <button key={loc} type="button" className="link-button" onClick={() => showLocation(report, item, k)}>
                    {loc}
                  </button>
                ))}
                {' · '}
                {item.references.join(', ')}
              </p>
              <ul className="advice-evidence" aria-label="Evidence">
                {item.evidence.map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </ul>
              <p className="advice-suggestion" data-testid="advice-suggestion">
                → {item.suggestion}
              </p>
              <div className="advice-foot">
                <span className="muted small">{item.rules.join(' · ')}</span>
                {item.action?.kind === 'cores' && (
                  <code className="small" data-testid="advice-command" title={`${item.action.label}: coherence misses are simulated on cores from the command line`}>
                    {item.action.command}
                  </code>
                )}
                {item.action && item.action.kind !== 'cores' && (
                  <button
                    type="button"
                    className="button small"
                    disabled={busy}
                    data-testid="advice-edit"
                    title="Open the what-if form with this change filled in, to adjust it first"
                    onClick={() => propose(changeOf(item.action as Exclude<AdviceAction, { kind: 'cores' }>), `${item.title}: ${item.suggestion}`)}
                  >
                    Edit as what-if…
                  </button>
                )}
                {item.action && item.action.kind !== 'cores' && (
                  <button
                    type="button"
                    className="button primary small"
                    disabled={busy}
                    data-testid="advice-action"
                    title={`Re-simulate run ${report.run} with this change; the new run is shown compared with this one`}
                    onClick={() => tryAction(item.action as Exclude<AdviceAction, { kind: 'cores' }>)}
                  >
                    {item.action.label}
                  </button>
                )}
                {item.codeAction && (
                  <button
                    type="button"
                    className="button primary small"
                    disabled={busy}
                    data-testid="advice-code-action"
                    title={`Re-simulate run ${report.run} with the recorded loop nest reordered as this code change would (docs/TRANSFORMS.md); the new run is shown compared with this one`}
                    onClick={() => tryAction(item.codeAction!)}
                  >
                    {item.codeAction.label}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}

/** Selects the item's k-th line (its first reference there) and shows it in the source tab. */
function showLocation(report: RunReport, item: AdviceItem, k: number) {
  const s = useSession.getState()
  const refs = report.references.filter((r) => item.references.includes(r.id))
  const ref = refs.find((r) => r.file !== null && r.line !== null && item.locations[k]?.endsWith(`:${r.line}`)) ?? refs[0]
  if (!ref) return
  s.select(ref.file, ref.line, ref.id)
  s.setTab('source')
}
