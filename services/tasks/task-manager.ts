import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { type BusScope, currentContext, isSmError, reasonOf, SmError } from '../../kernel'
import type { TaskContext, TaskRecord } from './contract'

interface Live {
  record: TaskRecord
  readonly controller: AbortController
  readonly began: number
  start?: () => void
}

const current = new AsyncLocalStorage<Live>()

/**
 * Runs long work as tasks: each gets an id, a state, progress and a result, recorded as
 * `task_started`/`task_finished` facts. At most `max` run at once, the rest wait in order; work
 * started from inside a task runs at once (a nested task never waits for its own parent's slot).
 */
export class TaskManager {
  readonly #live = new Map<string, Live>()
  readonly #queue: Live[] = []
  #running = 0

  constructor(
    private readonly bus: BusScope,
    private readonly max: () => Promise<number>,
  ) {}

  /** Starts `fn` as a task; `done` settles with its result. */
  run<T>(name: string, fn: (ctx: TaskContext) => Promise<T>): { id: string; done: Promise<T> } {
    const id = randomUUID()
    const owner = currentContext()?.actor ?? 'core'
    const live: Live = {
      record: {
        id,
        name,
        owner,
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
    }
    this.#live.set(id, live)
    const nested = current.getStore() !== undefined
    const done = new Promise<T>((resolve, reject) => {
      live.start = () => {
        live.start = undefined
        this.#running++
        live.record = { ...live.record, state: 'running' }
        const ctx: TaskContext = {
          id,
          signal: live.controller.signal,
          progress: (percent, message) => this.#progress(live, percent, message),
        }
        void current.run(live, async () => {
          await this.bus.emit('task_started', { id, name, owner })
          try {
            // Cancelled while it waited: it never runs.
            if (live.controller.signal.aborted) throw live.controller.signal.reason
            const value = await fn(ctx)
            await this.#finish(live, live.controller.signal.aborted ? 'cancelled' : 'succeeded', { result: value })
            resolve(value)
          } catch (error) {
            await this.#finish(live, live.controller.signal.aborted ? 'cancelled' : 'failed', { error })
            reject(error)
          } finally {
            this.#running--
            void this.#next()
          }
        })
      }
    })
    if (nested) live.start?.()
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

  list(limit: number): TaskRecord[] {
    return [...this.#live.values()]
      .map((l) => l.record)
      .reverse()
      .slice(0, limit)
  }

  get(id: string): TaskRecord | undefined {
    return this.#live.get(id)?.record
  }

  cancel(id: string): TaskRecord | undefined {
    const live = this.#live.get(id)
    if (!live) return undefined
    live.controller.abort(new SmError('SM_ERR_TASK_CANCELLED', { id, name: live.record.name }))
    const queued = this.#queue.indexOf(live)
    if (queued >= 0) {
      this.#queue.splice(queued, 1)
      live.start?.() // it ends at once as cancelled, without running
    }
    return live.record
  }

  async #next(): Promise<void> {
    const max = await this.max()
    while (this.#running < max && this.#queue.length > 0) this.#queue.shift()?.start?.()
  }

  #progress(live: Live, percent: number | undefined, message: string | undefined): void {
    live.record = { ...live.record, percent, message: message ?? live.record.message }
    void this.bus.emit('task_progress', { id: live.record.id, name: live.record.name, percent, message })
  }

  async #finish(
    live: Live,
    state: 'succeeded' | 'failed' | 'cancelled',
    outcome: { result?: unknown; error?: unknown },
  ) {
    const error =
      outcome.error === undefined
        ? undefined
        : { code: isSmError(outcome.error) ? outcome.error.code : 'SM_ERR_INTERNAL', message: reasonOf(outcome.error) }
    live.record = {
      ...live.record,
      state,
      percent: state === 'succeeded' ? 100 : live.record.percent,
      result: jsonOnly(outcome.result),
      error,
      finishedAt: new Date().toISOString(),
    }
    await this.bus.emit('task_finished', {
      id: live.record.id,
      name: live.record.name,
      state,
      ...(error ? { error } : { result: live.record.result }),
      ms: Date.now() - live.began,
    })
    // Finished tasks are kept for listing; the oldest go past a thousand.
    for (const [id, l] of this.#live) {
      if (this.#live.size <= 1_000) break
      if (l.record.finishedAt) this.#live.delete(id)
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
