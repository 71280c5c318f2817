/**
 * A run's report as the session view asks for it: the whole report the first time for a
 * recording, then (a what-if's run, another run) only the run's figures, completed from what
 * the earlier report had that no run changes (shared/report-figures.ts). A what-if of a
 * whole-program session then receives and parses about half the bytes. When the figures
 * cannot be completed (the session was traced again, a reference is new), the whole report.
 */
import type { ReferenceStatics, RunReport } from '../../shared/domain'
import type { StrideApi } from '../../shared/api'
import { joinReport, staticsOf } from '../../shared/report-figures'

/** Sessions whose statics are kept: the open one and a baseline or two. */
const KEEP_SESSIONS = 4

export class ReportLoader {
  private readonly kept = new Map<string, ReferenceStatics>()

  constructor(private readonly api: () => Pick<StrideApi, 'getReport' | 'getRunFigures'>) {}

  async load(session: string, run: number | null): Promise<RunReport> {
    const statics = this.kept.get(session)
    if (statics) {
      const joined = joinReport(await this.api().getRunFigures({ session, run }), statics)
      if (joined) return joined
    }
    const report = await this.api().getReport({ session, run })
    this.keep(session, staticsOf(report))
    return report
  }

  private keep(session: string, statics: ReferenceStatics | null): void {
    this.kept.delete(session)
    if (!statics) return
    this.kept.set(session, statics)
    while (this.kept.size > KEEP_SESSIONS) this.kept.delete(this.kept.keys().next().value!)
  }
}
