import type { BusScope, Logger } from '../../kernel'
import type { StoredEvent } from './contract'
import type { EventStore } from './event-store'

const PAGE = 1_000

/**
 * Emits `events:appended` in sequence order for every event that reaches the log, whether this
 * process or another one appended it. It polls only while someone listens; a local append
 * wakes it at once. Commits are ordered by sequence number, so reading `seq > cursor` never
 * skips or repeats an event. While this process commits it waits for the hand-over instead of
 * reading: another process's events show as a gap in the local run and are read then.
 */
export class Follower {
  readonly #store: EventStore
  readonly #bus: BusScope
  readonly #logger: Logger
  readonly #timer: NodeJS.Timeout
  #cursor: number | undefined
  readonly #local: StoredEvent[] = []
  #busy = false
  #again = false

  constructor(store: EventStore, bus: BusScope, logger: Logger, intervalMs = 250) {
    this.#store = store
    this.#bus = bus
    this.#logger = logger
    this.#timer = setInterval(() => this.wake(), intervalMs)
    this.#timer.unref()
  }

  /**
   * Events this process just appended: emitted without reading them back when they follow on
   * from what was emitted last (another process's events in between are read from the log).
   */
  appended(events: readonly StoredEvent[]): void {
    if (events.length === 0) return
    this.#local.push(...events)
    if (this.#local.length > PAGE) this.#local.splice(0, this.#local.length - PAGE)
    this.wake()
  }

  /** Follow from `afterSeq` on (a reader that has already seen everything up to it). */
  watch(afterSeq: number): void {
    this.#cursor = this.#cursor === undefined ? afterSeq : Math.min(this.#cursor, afterSeq)
    this.wake()
  }

  wake(): void {
    if (this.#busy) {
      this.#again = true
      return
    }
    this.#busy = true
    this.#poll()
      .catch((error: unknown) => this.#logger.warn('following the event log failed', { error }))
      .finally(() => {
        this.#busy = false
        if (this.#again) {
          this.#again = false
          this.wake()
        }
      })
  }

  /** The local events that continue right after `cursor`, in order (none if there is a gap). */
  #takeLocal(cursor: number): StoredEvent[] {
    const local = this.#local
    while (local.length > 0 && (local[0] as StoredEvent).seq <= cursor) local.shift()
    let run = 0
    while (run < local.length && (local[run] as StoredEvent).seq === cursor + run + 1) run++
    return local.splice(0, run)
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  async #poll(): Promise<void> {
    if (!this.#bus.hasListeners('events:appended')) {
      this.#cursor = undefined
      this.#local.length = 0
      return
    }
    if (this.#cursor === undefined) {
      const head = await this.#store.head()
      // A watch() that came in while the head was read knows better where its reader stands.
      this.#cursor = this.#cursor === undefined ? head : Math.min(this.#cursor, head)
      return
    }
    for (;;) {
      const cursor: number = this.#cursor
      const local = this.#takeLocal(cursor)
      // Nothing local while this process commits: the commit's hand-over wakes us. Reading now
      // would race it and fetch its rows back (and, once ahead, keep racing every commit).
      if (local.length === 0 && this.#local.length === 0 && this.#store.committing) return
      const events: StoredEvent[] = local.length > 0 ? local : await this.#store.read({ afterSeq: cursor, limit: PAGE })
      const last = events[events.length - 1]
      if (!last) return
      this.#cursor = last.seq
      await this.#bus.emit('events:appended', { events })
      if (events.length < PAGE) return
    }
  }
}
