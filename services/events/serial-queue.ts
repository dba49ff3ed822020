/**
 * Runs async jobs one at a time in arrival order. One SQLite connection must never interleave
 * two transactions, so every statement of this process goes through one queue.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job, job)
    this.#tail = result.catch(() => undefined)
    return result
  }
}
