/**
 * Runs async jobs one at a time in arrival order (one SQLite connection must never interleave
 * two transactions; two plugin reloads must never interleave either).
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()
  #pending = 0

  /** Whether no job runs or waits (a caller inside a job must never wait for the queue). */
  get idle(): boolean {
    return this.#pending === 0
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    this.#pending++
    const result = this.#tail.then(job, job).finally(() => {
      this.#pending--
    })
    this.#tail = result.catch(() => undefined)
    return result
  }
}
