/**
 * Sign-in attempts counted per key (a user name, a client address, the two together) in a sliding window. An
 * attempt is counted when it starts, in the same turn as the check, so parallel attempts cannot
 * all pass the check while their slow hashes run; a successful one is taken back. In memory: the
 * manager is the one process that serves sign-ins, and a restart forgiving old failures is fine.
 */
export class FailureLimiter {
  readonly #attempts = new Map<string, number[]>()
  /** Until when a key's lockout has been reported, so a lockout is reported once per window. */
  readonly #reported = new Map<string, number>()

  /**
   * Counts an attempt on every key, unless one of them is at its limit (each key has its own):
   * then nothing is counted, and the answer names that key, the seconds until it may try again,
   * and whether this lockout is new (not reported within the last window).
   */
  reserve(
    limits: readonly { readonly key: string; readonly max: number }[],
    windowMs: number,
    now = Date.now(),
  ): { key: string; seconds: number; report: boolean } | undefined {
    for (const { key, max } of limits) {
      const times = this.#recent(key, windowMs, now)
      if (times.length < max) continue
      const seconds = Math.max(1, Math.ceil(((times[0] ?? now) + windowMs - now) / 1000))
      const report = (this.#reported.get(key) ?? 0) <= now
      if (report) this.#reported.set(key, now + windowMs)
      return { key, seconds, report }
    }
    for (const { key } of limits) this.#attempts.set(key, [...this.#recent(key, windowMs, now), now])
    this.#forgetOld(windowMs, now)
    return undefined
  }

  /** Takes back one attempt counted at `at` (a sign-in that succeeded). */
  release(key: string, at: number): void {
    const times = this.#attempts.get(key)
    const index = times?.indexOf(at) ?? -1
    if (times && index >= 0) times.splice(index, 1)
  }

  /** Forgets every attempt on `key` (the password was proven). */
  clear(key: string): void {
    this.#attempts.delete(key)
    this.#reported.delete(key)
  }

  /** Forgets every attempt on the keys `matches` picks (a password reset). */
  clearWhere(matches: (key: string) => boolean): void {
    for (const key of [...this.#attempts.keys()]) if (matches(key)) this.clear(key)
  }

  #recent(key: string, windowMs: number, now: number): number[] {
    return (this.#attempts.get(key) ?? []).filter((time) => time > now - windowMs)
  }

  /** Bounded: forget keys whose attempts all left the window. */
  #forgetOld(windowMs: number, now: number): void {
    if (this.#attempts.size <= 10_000) return
    for (const [key, times] of this.#attempts) if ((times.at(-1) ?? 0) <= now - windowMs) this.#attempts.delete(key)
    for (const [key, until] of this.#reported) if (until <= now) this.#reported.delete(key)
  }
}
