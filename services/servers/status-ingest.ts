import {
  type BusScope,
  Chain,
  currentContext,
  isDiskFull,
  type Logger,
  type PayloadOf,
  reasonOf,
  reportObserved,
  runInContext,
  SmError,
} from '../../kernel'
import type { Projections } from '../events/contract'
import { ACTIVE, type ServerRecord } from './contract'
import { serverActor } from './observed-actor'
import { powerLockHeld, withFileLock, withPowerLock } from './power-lock'
import { readStatuses, recordedJournalSeq, statusProjection } from './status-projection'
import type { RunFiles, RunSpec, RunState, StatusEntry } from './supervisor/run-files'
import { alive, gameRunning, recordEnd } from './unseen-end'

/**
 * How far a catch-up goes. `journal`: the status journal's new entries become facts (the live
 * follow, a read of the log, after a power action). `look`: first what a look finds to do (work a
 * dead process left undone, a held world whose supervisor died, a run that ended unseen), then
 * the journal.
 */
export type CatchUpDepth = 'journal' | 'look'

/** What a look's catch-up asks of process control (services/servers/control.ts). */
export interface Recovery {
  /** Starts a server that work of a dead process stopped and meant to start again (intent.json). */
  finishInterrupted(server: ServerRecord): Promise<void>
  /** Gives a game whose supervisor died holding its world a new supervisor, which resumes it if its holder is gone. */
  adoptHeld(server: ServerRecord): Promise<void>
  /** The server's restart policy in effect. */
  restartPolicy(server: ServerRecord): Promise<RunSpec['restart']>
  /** Starts the policy's restart of a crash found after the fact. */
  relaunch(server: ServerRecord, crashed: RunState): Promise<void>
}

/**
 * The causal chain (kernel/context.ts) of a catch-up's work carries this: whatever the work causes
 * (a hook of a fact it records reading the server's status, or starting it; a start it makes)
 * asks for the next pass and does not wait for it, since the pass it would wait for is its own.
 */
const CATCHING_UP = 'servers:catching-up'

/**
 * The one owner of status ingestion in a process: it alone turns what the files of a server's run
 * say happened into facts and follow-ups. Supervisors write `status.jsonl` (they cannot write the
 * event log); this records each entry as `server_status_change` (and `server_crash`), in order and
 * once. A look's catch-up (`status`) first deals with what nobody was there to see: a run whose
 * game and supervisor both died is recorded ended and the crash policy applied (a restart), work
 * that a dead process left undone is finished, a held world is given a supervisor.
 *
 * Catch-ups of one server run one at a time in this process (a request during one shares the next
 * pass), and the journal of a server is recorded by one process at a time (`ingest.lock`: a CLI
 * process without a manager, or several, may look at the same server as the manager does).
 */
export class StatusIngest {
  readonly #bus: BusScope
  readonly #projections: Projections
  readonly #logger: Logger
  readonly #files: (name: string) => RunFiles
  readonly #recovery: Recovery
  readonly #lanes = new Map<string, Lane>()
  #closed = false

  constructor(
    bus: BusScope,
    projections: Projections,
    logger: Logger,
    files: (name: string) => RunFiles,
    recovery: Recovery,
  ) {
    this.#bus = bus
    this.#projections = projections
    this.#logger = logger
    this.#files = files
    this.#recovery = recovery
  }

  /**
   * Catches up with the server (`depth`); resolves once done. Asked from inside a catch-up's own
   * work, the pass it asks for comes after, unwaited (see CATCHING_UP). Never rejects: what
   * could not be done is said in the log and done by the next catch-up.
   */
  catchUp(server: ServerRecord, depth: CatchUpDepth): Promise<void> {
    if (this.#closed) return Promise.resolve()
    let lane = this.#lanes.get(server.name)
    if (!lane) {
      lane = new Lane((latest, look) =>
        this.#pass(latest, look).catch((error: unknown) =>
          this.#logger.warn(`Catching up with '${latest.name}' failed: ${reasonOf(error)}`),
        ),
      )
      this.#lanes.set(server.name, lane)
    }
    const done = lane.request(server, depth === 'look')
    return insideCatchUp() ? Promise.resolve() : done
  }

  /**
   * Records, for every server, the journal entries the log does not have yet, and waits for the
   * catch-ups under way (asked before each read of the log, so it shows what supervisors saw while
   * nobody recorded it). Cheap when there is nothing new: one projection query, then the last line
   * of each journal.
   */
  async recordPending(servers: readonly ServerRecord[]): Promise<void> {
    // A hook of a fact being recorded that reads the log: what is being recorded is enough.
    if (insideCatchUp()) return
    const recorded = await this.#projections.view(statusProjection.name, readStatuses)
    const seen = new Map(recorded.map((s) => [s.name, s.journalSeq]))
    for (const server of servers) {
      const behind = this.#files(server.name).lastJournalSeq() > (seen.get(server.name) ?? 0)
      if (behind) await this.catchUp(server, 'journal')
      else await this.#lanes.get(server.name)?.idle()
    }
  }

  /** Takes no more catch-ups and waits for those under way (the service is stopping). */
  async close(): Promise<void> {
    this.#closed = true
    await Promise.all([...this.#lanes.values()].map((lane) => lane.idle()))
  }

  async #pass(server: ServerRecord, look: boolean): Promise<void> {
    if (this.#closed || !this.#files(server.name).exists()) return // never started: nothing to catch up with
    if (look) {
      await this.#step(server, 'work left undone', () => this.#recovery.finishInterrupted(server))
      await this.#step(server, 'a held world', () => this.#recovery.adoptHeld(server))
      await this.#step(server, 'a run that ended unseen', () => this.#endUnseen(server))
    }
    await this.#recordJournal(server)
  }

  /** One follow-up of a look: what fails is said, and left to the next look. */
  async #step(server: ServerRecord, what: string, work: () => Promise<void>): Promise<void> {
    await work().catch((error: unknown) => {
      const when = isDiskFull(error) ? ' (the next look tries again once the disk has room)' : ''
      this.#logger.warn(`Catching up with '${server.name}' (${what}) failed${when}: ${reasonOf(error)}`)
    })
  }

  /**
   * A run that ended while no supervisor watched it (its game and supervisor both gone: a reboot,
   * the OOM killer, kill -9) is recorded and the restart policy applied to it, once: under the
   * power lock, and only if the files still say so (another process that found it first has
   * dealt with it). A power action in flight owns the files: it decides, and the next look sees.
   */
  async #endUnseen(server: ServerRecord): Promise<void> {
    const files = this.#files(server.name)
    if (!endedUnseen(files.readState()) || powerLockHeld(files.powerLock)) return
    try {
      await withPowerLock(files.powerLock, server.name, 'crash restart', async () => {
        const state = files.readState()
        if (!state || !endedUnseen(state)) return
        const found = recordEnd(files, state, await this.#recovery.restartPolicy(server), server.name, this.#logger)
        if (found.restarted) await this.#recovery.relaunch(server, found.restarted)
      })
    } catch (error) {
      // Another process's start, stop or restart took it first: it decides.
      if (!(error instanceof SmError && error.code === 'SM_ERR_SERVER_BUSY')) throw error
    }
  }

  /** The journal's new entries as facts, by one process at a time (another waits for it, or leaves them to it). */
  async #recordJournal(server: ServerRecord): Promise<void> {
    const name = server.name
    try {
      await withFileLock(this.#files(name).ingestLock, 5_000, async () => {
        const seen = await this.#projections.read(statusProjection.name, (sql) => recordedJournalSeq(sql, name))
        for (const entry of this.#files(name).readJournal(seen)) await this.#record(name, entry)
      })
    } catch (error) {
      // What was done stays done: the next catch-up records the journal.
      if (isDiskFull(error))
        this.#logger.warn(`the status journal of '${name}' is not recorded while the disk is full: ${reasonOf(error)}`)
      else this.#logger.warn(`Recording the status journal of '${name}' failed: ${reasonOf(error)}`)
    }
  }

  /** One entry's facts: the status change, and for a crash the crash. */
  async #record(name: string, entry: StatusEntry): Promise<void> {
    await this.#observe('before_server_status_change', 'after_server_status_change', {
      serverName: name,
      status: entry.status,
      previousStatus: entry.previous,
      at: entry.at,
      reason: entry.reason,
      journalSeq: entry.seq,
      ...(entry.lastKnown ? { lastKnown: entry.lastKnown } : {}),
    })
    if (entry.status === 'crashed' && ACTIVE.includes(entry.previous))
      await this.#observe('before_server_crash', 'after_server_crash', {
        serverName: name,
        exitCode: entry.exitCode ?? null,
        signal: entry.signal ?? null,
        at: entry.at,
        restarts: entry.restarts ?? 0,
        willRestart: entry.willRestart ?? false,
      })
  }

  /** The hooks, then the fact: the game's (actor `server:<name>`), whoever's look records it. */
  async #observe<
    B extends 'before_server_status_change' | 'before_server_crash',
    A extends 'after_server_status_change' | 'after_server_crash',
  >(before: B, after: A, payload: PayloadOf<B> & { readonly serverName: string }): Promise<void> {
    const actor = serverActor(payload.serverName)
    const { vetoedBy } = await reportObserved(this.#bus, { before, after, payload, actor })
    if (vetoedBy)
      this.#logger.warn(`${vetoedBy} tried to veto ${before}, which reports what already happened; ignored.`)
  }
}

/** Whether the run's files say it runs while its game and supervisor are both gone. */
export function endedUnseen(state: RunState | undefined): boolean {
  return state !== undefined && ACTIVE.includes(state.status) && !gameRunning(state.game) && !alive(state.supervisor)
}

function insideCatchUp(): boolean {
  return currentContext().chain?.has(CATCHING_UP) ?? false
}

/**
 * The catch-ups of one server: one pass at a time; requests made during a pass share the next
 * one (a `look` if any of them asked for one). Each pass runs in a causal chain marked
 * CATCHING_UP, so what it causes never waits for it.
 */
class Lane {
  readonly #pass: (server: ServerRecord, look: boolean) => Promise<void>
  #queued: { server: ServerRecord; look: boolean; done: Promise<void>; resolve: () => void } | undefined
  #running: Promise<void> | undefined

  constructor(pass: (server: ServerRecord, look: boolean) => Promise<void>) {
    this.#pass = pass
  }

  /**
   * Asks for a pass (a look's, or the journal's only) after any under way, with the server's
   * latest record (its settings decide its restart policy); resolves once that pass is done.
   */
  request(server: ServerRecord, look: boolean): Promise<void> {
    if (this.#queued) {
      this.#queued.server = server
      this.#queued.look ||= look
      return this.#queued.done
    }
    let resolve = () => {}
    const done = new Promise<void>((r) => {
      resolve = r
    })
    this.#queued = { server, look, done, resolve }
    this.#running ??= runInContext({ chain: new Chain(CATCHING_UP, currentContext().chain) }, () => this.#drain())
    return done
  }

  /** Resolves once no pass runs or waits. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queued) {
        const next = this.#queued
        this.#queued = undefined
        try {
          await this.#pass(next.server, next.look)
        } finally {
          next.resolve()
        }
      }
    } finally {
      this.#running = undefined
    }
  }
}
