/**
 * Runs async jobs one at a time in arrival order (one SQLite connection must never interleave
 * two transactions; two plugin reloads must never interleave either).
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job, job)
    this.#tail = result.catch(() => undefined)
    return result
  }
}
