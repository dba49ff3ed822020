import { readFileSync, rmSync } from 'node:fs'
import type { Logger } from '../../kernel'
import { reasonOf } from '../../kernel'
import { pidExists } from '../../lib/process-identity'
import { writeFileWhole } from '../../lib/whole-file'

/** How many runs in a row a plugin may be among those that died with the process before it is kept out. */
export const CRASH_LIMIT = 2

/** What a manager leaves in `<data dir>/plugins.running.json` while it runs; removed at a clean stop. */
interface RunRecord {
  readonly pid: number
  readonly at: string
  /** Plugins the runs before this one died with, and how many runs in a row. */
  readonly strikes: Record<string, number>
  /** Plugins whose code is being started (import, constructor, onLoad): the likeliest to have ended the process. */
  readonly loading: readonly string[]
  /** Plugins whose code runs (a thread, timers): suspects when none was loading. */
  readonly running: readonly string[]
}

/** A plugin kept out by this start: it was among those that died with the process, `runs` runs in a row. */
export interface CrashedPlugin {
  readonly plugin: string
  readonly runs: number
  /** 'loading' or 'running' when the last run died. */
  readonly was: string
  /** When the run that died last began. */
  readonly at: string
}

/**
 * Keeps a plugin that takes the whole process down (`process.kill(process.pid, 'SIGKILL')`,
 * a native crash) from doing so at every start. While the manager runs, a record on disk names
 * the plugins whose code runs in it, and those being loaded; a clean stop removes it. A record
 * found at start is a run that died: its loading plugins (or, when none was loading, its running
 * ones) get a strike; one struck in CRASH_LIMIT runs in a row is kept out, and one struck once is
 * loaded alone (nothing else loading beside it), so that its next death names it only. One death
 * (an admin's `kill -9`, the OOM killer) keeps nothing out.
 */
export class CrashGuard {
  readonly #file: string
  readonly #logger: Logger
  #strikes: Record<string, number> = {}
  readonly #loading = new Set<string>()
  readonly #running = new Set<string>()
  #began = false
  #warned = false

  constructor(file: string, logger: Logger) {
    this.#file = file
    this.#logger = logger
  }

  /**
   * Judges the run before this one (once per process) and starts this run's record. `explained`:
   * that run's end is already attributed (the loop watchdog named the plugin), so it strikes none.
   */
  begin(explained: boolean): CrashedPlugin[] {
    if (this.#began) return []
    this.#began = true
    const previous = readRun(this.#file)
    const out: CrashedPlugin[] = []
    this.#strikes = {}
    if (previous && !explained && !alive(previous.pid)) {
      const was = previous.loading.length > 0 ? 'loading' : 'running'
      for (const plugin of was === 'loading' ? previous.loading : previous.running) {
        const runs = (previous.strikes[plugin] ?? 0) + 1
        if (runs >= CRASH_LIMIT) out.push({ plugin, runs, was, at: previous.at })
        else this.#strikes[plugin] = runs
      }
    }
    this.#write()
    return out
  }

  /** Struck once already: loaded alone, so that the next death is its own or not. */
  suspect(plugin: string): boolean {
    return (this.#strikes[plugin] ?? 0) > 0
  }

  loading(plugin: string): void {
    this.#running.delete(plugin)
    this.#loading.add(plugin)
    this.#write()
  }

  running(plugin: string): void {
    this.#loading.delete(plugin)
    this.#running.add(plugin)
    this.#write()
  }

  gone(plugin: string): void {
    if (!this.#loading.delete(plugin) && !this.#running.delete(plugin)) return
    this.#write()
  }

  /** A clean stop: no plugin died with this run. */
  end(): void {
    if (!this.#began) return
    this.#began = false
    try {
      rmSync(this.#file, { force: true })
    } catch (error) {
      this.#logger.warn(`the record of running plugins could not be removed (${reasonOf(error)})`, { path: this.#file })
    }
  }

  #write(): void {
    if (!this.#began) return
    const record: RunRecord = {
      pid: process.pid,
      at: new Date().toISOString(),
      strikes: this.#strikes,
      loading: [...this.#loading],
      running: [...this.#running],
    }
    try {
      writeFileWhole(this.#file, `${JSON.stringify(record)}\n`)
    } catch (error) {
      // Less protection, not a failure: the plugins run as they would have (said once).
      if (this.#warned) return
      this.#warned = true
      this.#logger.warn(
        `the record of running plugins could not be written (${reasonOf(error)}); a plugin that ends the process may not be kept out`,
        { path: this.#file },
      )
    }
  }
}

function readRun(file: string): RunRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as RunRecord
    if (typeof record.pid === 'number' && Array.isArray(record.loading) && Array.isArray(record.running))
      return { ...record, strikes: record.strikes ?? {} }
  } catch {
    // none (the usual case), or damaged: judged as none, and rewritten by this run
  }
  return undefined
}

// A record of a process still running is another manager's (never this data directory's: the
// manager's lock allows one), and a process that ended long ago and whose pid was reused reads as
// alive: either way nothing is struck, which errs on the side of keeping plugins.
function alive(pid: number): boolean {
  return pid !== process.pid && pidExists(pid)
}
