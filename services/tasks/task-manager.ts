import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { type BusScope, currentContext, type Logger, reasonOf, SmError, toSmError } from '../../kernel'
import { ownProcess } from '../../lib/process-identity'
import type { TaskContext, TaskRecord, Tasks } from './contract'

interface Live {
  record: TaskRecord
  readonly controller: AbortController
  readonly began: number
  start?: () => void
  /** Settles the task's `done` (set when it is created). */
  settle: (outcome: { result?: unknown; error?: unknown }) => void
  /** Set once the task has ended: later outcomes of its work change nothing. */
  ended: boolean
  /** Whether it counts against `max` (it started and has not ended). */
  holdsSlot: boolean
}

const current = new AsyncLocalStorage<Live>()
/** This process, as tasks:started records it (read once: it does not change). */
const OWN_IDENTITY = ownProcess().identity

/**
 * Runs long work as tasks: each gets an id, a state, progress and a result, recorded as
 * `tasks:started`/`tasks:finished` facts. At most `max` run at once, the rest wait in order; work
 * started from inside a task runs at once (a nested task never waits for its own parent's slot).
 *
 * A task always ends, whatever happens to its facts: one whose `tasks:started` cannot be recorded
 * (a full disk) fails with that coded cause without running; one whose `tasks:finished` cannot be
 * recorded still ends here (listed, slot released, caller answered), with a warning in the log.
 * Cancelling a running task ends it at once and aborts its signal (and its nested tasks'): work
 * that watches it (backups, restores) stops and undoes itself; work that does not finishes in
 * the background and its late outcome is only logged.
 */
export class TaskManager implements Tasks {
  readonly #live = new Map<string, Live>()
  readonly #queue: Live[] = []
  #running = 0
  /** The last `max` read; used while the setting cannot be read. */
  #max = 1

  constructor(
    private readonly bus: BusScope,
    private readonly max: () => Promise<number>,
    private readonly logger: Logger,
  ) {}

  /** Starts `fn` as a task; `done` settles with its result. */
  run<T>(
    name: string,
    fn: (ctx: TaskContext) => Promise<T>,
    options: { readonly server?: string } = {},
  ): { id: string; done: Promise<T> } {
    const id = randomUUID()
    const about = options.server === undefined ? {} : { server: options.server }
    const owner = currentContext()?.actor ?? 'core'
    let settle!: Live['settle']
    const done = new Promise<T>((resolve, reject) => {
      settle = (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome.result as T))
    })
    const live: Live = {
      record: {
        id,
        name,
        owner,
        ...about,
        state: 'queued',
        percent: undefined,
        message: undefined,
        result: undefined,
        error: undefined,
        createdAt: new Date().toISOString(),
        finishedAt: undefined,
      },
      controller: new AbortController(),
      began: Date.now(),
      settle,
      ended: false,
      holdsSlot: false,
    }
    this.#live.set(id, live)
    const parent = current.getStore()
    const nested = parent !== undefined
    // Cancelling a task cancels the work it started as tasks of their own (a backup inside an update).
    if (parent?.controller.signal.aborted) live.controller.abort(parent.controller.signal.reason)
    else parent?.controller.signal.addEventListener('abort', () => void this.cancel(id).catch(() => {}), { once: true })
    live.start = () => {
      live.start = undefined
      this.#running++
      live.holdsSlot = true
      live.record = { ...live.record, state: 'running' }
      const ctx: TaskContext = {
        id,
        signal: live.controller.signal,
        progress: (percent, message) => this.#progress(live, percent, message),
      }
      void current.run(live, async () => {
        const aborted = () => live.controller.signal.aborted
        try {
          // Not recorded as started (a full disk): it does not run, and fails with that cause.
          await this.bus.emit('tasks:started', { id, name, owner, ...about, pid: process.pid, identity: OWN_IDENTITY })
          // Cancelled while it waited: it never runs.
          if (aborted()) throw live.controller.signal.reason
          const value = await fn(ctx)
          await this.#end(live, aborted() ? 'cancelled' : 'succeeded', { result: value })
        } catch (error) {
          await this.#end(live, aborted() ? 'cancelled' : 'failed', { error })
        }
      })
    }
    if (nested) live.start()
    else {
      this.#queue.push(live)
      void this.#next()
    }
    return { id, done }
  }

  /** Reports progress for the task the caller runs in (no-op outside a task). */
  progress(percent: number | undefined, message?: string): void {
    const live = current.getStore()
    if (live) this.#progress(live, percent, message)
  }

  /**
   * The signal of the task the caller runs in (undefined outside a task): aborted when the task is
   * cancelled, so that long work passed it stops, and undoes what it must, within moments.
   */
  signal(): AbortSignal | undefined {
    return current.getStore()?.controller.signal
  }

  list(limit: number): TaskRecord[] {
    return [...this.#live.values()]
      .map((l) => l.record)
      .reverse()
      .slice(0, limit)
  }

  get(id: string): TaskRecord | undefined {
    return this.#live.get(id)?.record
  }

  /** The ids of the tasks this process knows, newest last. */
  ids(): string[] {
    return [...this.#live.keys()]
  }

  /**
   * Cancels a task: a queued one never runs; a running one has its signal aborted and ends now
   * as cancelled (its slot is free for the next). Undefined when the id is not known here.
   */
  async cancel(id: string): Promise<TaskRecord | undefined> {
    const live = this.#live.get(id)
    if (!live) return undefined
    if (live.ended) throw new SmError('SM_ERR_TASK_FINISHED', { id, name: live.record.name, state: live.record.state })
    const reason = new SmError('SM_ERR_TASK_CANCELLED', { id, name: live.record.name })
    live.controller.abort(reason)
    const queued = this.#queue.indexOf(live)
    if (queued >= 0) this.#queue.splice(queued, 1)
    // Queued, or running work that may not watch its signal: it ends here and now either way.
    await this.#end(live, 'cancelled', { error: reason })
    return live.record
  }

  async #next(): Promise<void> {
    try {
      this.#max = await this.max()
    } catch (error) {
      this.logger.warn(`tasks.max_concurrent could not be read (${reasonOf(error)}); using ${this.#max}`)
    }
    while (this.#running < this.#max && this.#queue.length > 0) this.#queue.shift()?.start?.()
  }

  #progress(live: Live, percent: number | undefined, message: string | undefined): void {
    if (live.ended) return
    live.record = { ...live.record, percent, message: message ?? live.record.message }
    void this.bus
      .emit('tasks:progress', { id: live.record.id, name: live.record.name, percent, message })
      .catch((error) => this.logger.warn(`progress of task '${live.record.name}' not sent: ${reasonOf(error)}`))
  }

  /**
   * Ends a task once: its record, its slot, its caller, then its fact. A later outcome (work
   * that went on after a cancel) is only logged.
   */
  async #end(
    live: Live,
    state: 'succeeded' | 'failed' | 'cancelled',
    outcome: { result?: unknown; error?: unknown },
  ): Promise<void> {
    if (live.ended) {
      if (live.record.state === 'cancelled')
        this.logger.info(
          `the work of task '${live.record.name}' (${live.record.id}) ended after it was cancelled: ${
            'error' in outcome ? `failed: ${reasonOf(outcome.error)}` : 'it completed'
          }`,
        )
      return
    }
    live.ended = true
    const coded = outcome.error === undefined ? undefined : toSmError(outcome.error)
    // An unexpected error keeps its own words; a coded one (a full disk included) its message.
    const error = coded && {
      code: coded.code,
      message: coded.code === 'SM_ERR_INTERNAL' ? reasonOf(outcome.error) : coded.message,
    }
    live.record = {
      ...live.record,
      state,
      percent: state === 'succeeded' ? 100 : live.record.percent,
      result: jsonOnly(outcome.result),
      error,
      finishedAt: new Date().toISOString(),
    }
    try {
      await this.bus.emit('tasks:finished', {
        id: live.record.id,
        name: live.record.name,
        state,
        ...(error ? { error } : { result: live.record.result }),
        ms: Date.now() - live.began,
      })
    } catch (failure) {
      // Ended all the same: a task never stays running because its end could not be written.
      this.logger.warn(
        `task '${live.record.name}' (${live.record.id}) ${state}, but that could not be recorded: ${reasonOf(failure)}`,
      )
    } finally {
      if (live.holdsSlot) {
        live.holdsSlot = false
        this.#running--
      }
      live.settle(outcome.error === undefined ? { result: outcome.result } : { error: outcome.error })
      void this.#next()
      // Finished tasks are kept for listing; the oldest go past a thousand.
      for (const [id, l] of this.#live) {
        if (this.#live.size <= 1_000) break
        if (l.ended) this.#live.delete(id)
      }
    }
  }
}

/** A result as the event log can hold it (JSON), or a note that it could not. */
function jsonOnly(value: unknown): unknown {
  if (value === undefined) return undefined
  try {
    return JSON.parse(JSON.stringify(value))
  } catch {
    return '[not JSON]'
  }
}
