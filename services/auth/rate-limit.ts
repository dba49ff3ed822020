/**
 * Failed sign-ins counted per key (a user name, a client address) in a sliding window. In memory:
 * the manager is the one process that serves sign-ins, and a restart forgiving old failures is fine.
 */
export class FailureLimiter {
  readonly #failures = new Map<string, number[]>()

  /** Seconds until `key` may try again, or 0. */
  retryAfter(key: string, max: number, windowMs: number, now = Date.now()): number {
    const times = this.#recent(key, windowMs, now)
    if (times.length < max) return 0
    return Math.max(1, Math.ceil(((times[0] ?? now) + windowMs - now) / 1000))
  }

  fail(key: string, windowMs: number, now = Date.now()): void {
    const times = this.#recent(key, windowMs, now)
    times.push(now)
    this.#failures.set(key, times)
    // Bounded: forget keys whose failures all left the window.
    if (this.#failures.size > 10_000)
      for (const [k, t] of this.#failures) if ((t.at(-1) ?? 0) <= now - windowMs) this.#failures.delete(k)
  }

  clear(key: string): void {
    this.#failures.delete(key)
  }

  #recent(key: string, windowMs: number, now: number): number[] {
    return (this.#failures.get(key) ?? []).filter((time) => time > now - windowMs)
  }
}
