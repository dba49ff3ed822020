import type { SmError } from './errors'

export interface DispatchSuccess {
  readonly owner: string
  /** What the listener returned (a `before_*` hook's `{ cancel, reason }`, for example). */
  readonly value: unknown
}

export interface DispatchFailure {
  readonly owner: string
  readonly error: SmError
}

/**
 * The outcome of one emit: dispatch never throws because of a listener. Built lazily from the
 * owners and the values recorded during dispatch, because most emits never read it and the
 * hot path must not allocate an object per listener.
 */
export class DispatchReport {
  readonly event: string
  readonly seq: number | undefined
  readonly #owners: readonly string[]
  #values: unknown[] | undefined
  #failures: (DispatchFailure & { readonly index: number })[] | undefined

  constructor(event: string, seq: number | undefined, owners: readonly string[]) {
    this.event = event
    this.seq = seq
    this.#owners = owners
  }

  /** How many listeners the event reached. */
  get listeners(): number {
    return this.#owners.length
  }

  get successes(): DispatchSuccess[] {
    const failed = new Set(this.#failures?.map((f) => f.index))
    const successes: DispatchSuccess[] = []
    this.#owners.forEach((owner, index) => {
      if (!failed.has(index)) successes.push({ owner, value: this.#values?.[index] })
    })
    return successes
  }

  get failures(): DispatchFailure[] {
    return (this.#failures ?? []).map(({ owner, error }) => ({ owner, error }))
  }

  /** @internal Records listener `index`'s return value. */
  succeeded(index: number, value: unknown): void {
    if (value === undefined) return
    this.#values ??= []
    this.#values[index] = value
  }

  /** @internal Records listener `index`'s failure. */
  failed(index: number, error: SmError): void {
    this.#failures ??= []
    this.#failures.push({ index, owner: this.#owners[index] ?? '?', error })
    // In listener order, whichever failed first (listeners called at once settle in any order).
    if (this.#failures.length > 1) this.#failures.sort((a, b) => a.index - b.index)
  }

  toJSON(): {
    event: string
    seq: number | undefined
    listeners: number
    successes: DispatchSuccess[]
    failures: DispatchFailure[]
  } {
    return {
      event: this.event,
      seq: this.seq,
      listeners: this.listeners,
      successes: this.successes,
      failures: this.failures,
    }
  }
}
