/**
 * The parts of a session that no simulation run changes: the point table (with its stream
 * metrics), what each point touched, the data structures, the loop nests, and the
 * simulator's and the roll-up's per-point inputs. Each part is read the first time it is
 * asked for and then kept. How long that stays true is the holder's business: a command or a
 * task makes one per call; the warm pool's workers keep one per session file between tasks
 * while the file is unchanged (workers/session-cache.ts), so a what-if and its report do not
 * read and rebuild ~5,000 points each time.
 *
 * The parts are shared by every report built from them: callers must not mutate them.
 */
import type { AccessPoint, LoopInfo, VariableInfo } from '../../shared/domain'
import type { Db } from './open-db'
import { readLoopNests } from './loops'
import { readPointKinds, readPointVariables, readPoints } from './session-reader'
import { readPointFactColumns, type PointFactColumns } from './slice-facts'
import { readTouches, type Touches } from './touches'
import { readVariables } from './variables'

export class SessionStatics {
  private pointTable: AccessPoint[] | null = null
  private pointKinds: Uint8Array | null = null
  private pointVariableNames: Array<string | null> | null = null
  private touchTable: Touches | null = null
  private variableTable: VariableInfo[] | null = null
  private loopNests: LoopInfo[] | null = null
  private factColumnTable: PointFactColumns | null = null

  points(db: Db): AccessPoint[] {
    return (this.pointTable ??= readPoints(db))
  }

  /** Kind code per point, the simulator's input. */
  kinds(db: Db): Uint8Array {
    return (this.pointKinds ??= readPointKinds(db))
  }

  /** The variable each point's accesses fall in (null: none), for the simulator's timeline. */
  pointVariables(db: Db): Array<string | null> {
    return (this.pointVariableNames ??= readPointVariables(db))
  }

  touches(db: Db): Touches {
    return (this.touchTable ??= readTouches(db))
  }

  variables(db: Db): VariableInfo[] {
    return (this.variableTable ??= readVariables(db))
  }

  loops(db: Db): LoopInfo[] {
    return (this.loopNests ??= readLoopNests(db))
  }

  /** Per point, the columns a slice fact takes from the point (variable, function, file, line, loop). */
  factColumns(db: Db): PointFactColumns {
    return (this.factColumnTable ??= readPointFactColumns(db))
  }
}
