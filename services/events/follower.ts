import type { BusScope, Logger } from '../../kernel'
import type { EventStore } from './event-store'

const PAGE = 1_000

/**
 * Emits `events:appended` in sequence order for every event that reaches the log, whether this
 * process or another one appended it. It polls only while someone listens; a local append
 * wakes it at once. Commits are ordered by sequence number, so reading `seq > cursor` never
 * skips or repeats an event.
 */
export class Follower {
  readonly #store: EventStore
  readonly #bus: BusScope
  readonly #logger: Logger
  readonly #timer: NodeJS.Timeout
  #cursor: number | undefined
  #busy = false
  #again = false

  constructor(store: EventStore, bus: BusScope, logger: Logger, intervalMs = 250) {
    this.#store = store
    this.#bus = bus
    this.#logger = logger
    this.#timer = setInterval(() => this.wake(), intervalMs)
    this.#timer.unref()
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

  stop(): void {
    clearInterval(this.#timer)
  }

  async #poll(): Promise<void> {
    if (!this.#bus.hasListeners('events:appended')) {
      this.#cursor = undefined
      return
    }
    if (this.#cursor === undefined) {
      this.#cursor = await this.#store.head()
      return
    }
    for (;;) {
      const events = await this.#store.read({ afterSeq: this.#cursor, limit: PAGE })
      const last = events[events.length - 1]
      if (!last) return
      this.#cursor = last.seq
      await this.#bus.emit('events:appended', { events })
      if (events.length < PAGE) return
    }
  }
}
