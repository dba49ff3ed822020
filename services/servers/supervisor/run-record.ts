import { appendFileSync } from 'node:fs'
import { reasonOf } from '../../../kernel/errors'
import type { RunFiles, RunSpec, RunState, ServerStatus, StatusEntry } from './run-files'
import { FINAL, type RunEvent, RunMachine, type RunPhase, STATUS_OF } from './run-machine'

/** How soon a run file that could not be written (a full disk) is tried again. */
const PERSIST_RETRY_MS = 1_000

/** What a status change may say besides the status. */
export type StatusExtra = Partial<Pick<StatusEntry, 'reason' | 'exitCode' | 'signal' | 'restarts' | 'willRestart'>>

/** Whom a run's record tells: every status change as journaled, its end, and that its last state is on disk. */
export interface RecordListener {
  readonly onStatus: (entry: StatusEntry) => void
  /** The run has ended for good: what runs beside it stops. */
  readonly onFinish: () => void
  /** Its last state is written (after onFinish): the supervisor may go. */
  readonly onWritten: () => void
}

/**
 * A supervisor's record of its run: the state it shows (`state.json`), the journal of its status
 * changes, its phase (every change through the declared transitions, run-machine.ts) and its
 * `supervisor.log`. A write that fails (a full disk) never ends the supervisor, which would end the
 * game it watches: the state stays in memory and is written once it can be.
 */
export class RunRecord {
  readonly #files: RunFiles
  readonly #listener: RecordListener
  /** Where the run is: every change goes through its declared transitions (run-machine.ts). */
  readonly #run: RunMachine
  #state: RunState
  /** state.json is behind #state; journal entries not yet appended (a full disk): written by persist. */
  #stateUnwritten = false
  #journalUnwritten: Omit<StatusEntry, 'seq'>[] = []
  #persistRetry: NodeJS.Timeout | undefined
  #persistTrouble: string | undefined
  #finished = false

  constructor(files: RunFiles, spec: RunSpec, listener: RecordListener) {
    this.#files = files
    this.#listener = listener
    this.#run = new RunMachine(spec.name)
    this.#state = files.readState() ?? {
      status: 'stopped',
      since: new Date().toISOString(),
      supervisor: undefined,
      game: undefined,
      mode: spec.mode,
      restarts: 0,
      exitCode: null,
      signal: null,
      reason: undefined,
    }
  }

  /** The state it shows now (possibly not yet on disk). */
  get state(): RunState {
    return this.#state
  }

  /** Changes the state in memory; `persist` (or the next status change) writes it. */
  update(change: Partial<RunState>): void {
    this.#state = { ...this.#state, ...change }
    this.#stateUnwritten = true
  }

  get phase(): RunPhase {
    return this.#run.phase
  }

  /** Whether `event` can happen now. */
  can(event: RunEvent): boolean {
    return this.#run.can(event)
  }

  /** Whether the run has ended for good. */
  get finished(): boolean {
    return this.#finished
  }

  /**
   * Makes the run's transition for `event` (refused with SM_ERR_SERVER_TRANSITION_ILLEGAL when it
   * cannot happen now), writes the status its new phase shows, and ends the run after a final one.
   */
  enter(event: RunEvent, extra: StatusExtra = {}): void {
    const { to, quiet } = this.#run.apply(event)
    const status = STATUS_OF[to]
    if (status !== undefined && !(quiet && status === this.#state.status)) this.#setStatus(status, extra)
    if (FINAL.includes(to)) this.#finish()
  }

  #setStatus(status: ServerStatus, extra: StatusExtra): void {
    const at = new Date().toISOString()
    const change = { at, status, previous: this.#state.status, ...extra }
    this.#state = { ...this.#state, status, since: at, reason: extra.reason }
    this.#stateUnwritten = true
    this.#journalUnwritten.push(change)
    // The entry as the journal will number it (its unwritten predecessors before it).
    const seq = this.#files.lastJournalSeq() + this.#journalUnwritten.length
    this.persist()
    this.#listener.onStatus({ seq, ...change })
  }

  /** Ends the run: the game has stopped for good (or never started). */
  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    this.#state = { ...this.#state, supervisor: undefined }
    this.#stateUnwritten = true
    this.#listener.onFinish()
    // Ends once its last state is on disk: until then it serves its status from memory (a full
    // disk), since the files would say a supervisor still watches a game that is gone.
    this.persist()
  }

  /**
   * Writes state.json and the journal entries not yet written. A write that fails (a full disk)
   * is said once and tried again until it works.
   */
  persist(): boolean {
    try {
      if (this.#stateUnwritten) {
        this.#files.writeState(this.#state)
        this.#stateUnwritten = false
      }
      while (this.#journalUnwritten.length > 0) {
        this.#files.appendJournal(this.#journalUnwritten[0] as Omit<StatusEntry, 'seq'>)
        this.#journalUnwritten.shift()
      }
    } catch (error) {
      if (this.#persistTrouble === undefined)
        this.log(
          `its run files cannot be written (${reasonOf(error)}); its state is kept in memory and written once they can`,
        )
      this.#persistTrouble = reasonOf(error)
      this.#persistRetry ??= setTimeout(() => {
        this.#persistRetry = undefined
        this.persist()
      }, PERSIST_RETRY_MS)
      return false
    }
    if (this.#persistTrouble !== undefined) this.log('its run files are written again')
    this.#persistTrouble = undefined
    if (this.#finished) this.#listener.onWritten()
    return true
  }

  /** A line in the run's `supervisor.log`. */
  log(message: string): void {
    try {
      appendFileSync(this.#files.supervisorLog, `${new Date().toISOString()} ${message}\n`, { mode: 0o600 })
    } catch {
      // supervisor.log cannot be written (a full disk): the line is lost, the supervisor carries on.
    }
  }
}
