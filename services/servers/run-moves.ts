import { existsSync } from 'node:fs'
import type { Logger } from '../../kernel'
import { runUnderWay } from './live-follow'
import { RunWatch } from './run-watch'
import type { RunStatus } from './supervisor/protocol'
import { RunFiles } from './supervisor/run-files'

/** What the live follow says of itself (live-follow.ts). */
interface Followed {
  /** Whether this process follows its servers (the manager, from its start to its stop). */
  readonly active: boolean
  /** Whether a live connection to the server's supervisor is followed: it tells every change of its run. */
  watching(name: string): boolean
}

/** How a status read may be held (server-list.ts): until its server's run moves, or also for at most WATCHED_MS. */
export type Hold = 'followed' | 'watched'

/**
 * When a server's run may have changed, for what keeps a status read in memory (server-list.ts):
 * a count per server, moved by everything that can change a run the manager knows of (its
 * supervisor's word as the live follow hears it, a status fact, this process's power actions
 * before and after, a change of its run files by any process), and whether a read can be held
 * until the count moves (`holds`).
 */
export class RunMoves {
  readonly #dataDir: string
  readonly #follow: Followed
  readonly #counts = new Map<string, number>()
  /** Moved for every server (the run watch lost its sight, or it began or ended). */
  #all = 0
  /** Per server, how many of this process's power actions are under way. */
  readonly #acting = new Map<string, number>()
  readonly #watch: RunWatch
  #closed = false

  constructor(dataDir: string, follow: Followed, logger: Logger) {
    this.#dataDir = dataDir
    this.#follow = follow
    this.#watch = new RunWatch(
      dataDir,
      (name) => this.moved(name),
      (reason) =>
        logger.warn(
          `Run files changed by other processes are not all heard (${reason}): the servers list reads those servers' status every time instead.`,
        ),
    )
  }

  /** How often something may have changed the server's run: a status read before is stale once this moves. */
  count(name: string): number {
    return (this.#counts.get(name) ?? 0) + this.#all
  }

  /** Something may have changed the server's run (a status recorded, its supervisor's word); no name: every server's. */
  moved(name?: string): void {
    if (name === undefined) this.#all++
    else this.#counts.set(name, (this.#counts.get(name) ?? 0) + 1)
  }

  /** The server was removed: its count goes (a server added again under its name is another record). */
  forget(name: string): void {
    this.#counts.delete(name)
  }

  /** Runs a power action on the server: its run is not held (holds) until the action is over. */
  async acting<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.#acting.set(name, (this.#acting.get(name) ?? 0) + 1)
    this.moved(name)
    try {
      return await fn()
    } finally {
      const left = (this.#acting.get(name) ?? 1) - 1
      if (left) this.#acting.set(name, left)
      else this.#acting.delete(name)
      this.moved(name)
    }
  }

  /**
   * Whether `now`, just read, stays true until `count(name)` moves: the manager follows the
   * server's supervisor, which tells it every change (`followed`); or no run is under way, no
   * power action of this process is, none was left unfinished (an intent to start it again, a
   * world held, whose holder may die without a file changing), and the run watch tells any
   * change of its run files, which a start by another process writes first (`watched`).
   */
  holds(name: string, now: RunStatus): Hold | undefined {
    if (this.#closed || !this.#follow.active || this.#acting.has(name)) return undefined
    if (this.#follow.watching(name)) return 'followed'
    if (runUnderWay(now) || !this.#watch.watched(name)) return undefined
    const files = RunFiles.of(this.#dataDir, name)
    return existsSync(files.intent) || existsSync(files.hold) ? undefined : 'watched'
  }

  /** Starts watching the run files (the manager, from its start); false once closed (it stopped first). */
  start(): boolean {
    if (this.#closed) return false
    this.#watch.start()
    // A read held from before the watch began was not heard of.
    this.moved()
    return true
  }

  /** Stops watching (the manager is stopping): nothing is held from here on. */
  close(): void {
    this.#closed = true
    this.#watch.close()
    this.moved()
  }
}
