/**
 * Races `promise` against a timer. The timer is unref'd so a hung listener never keeps the
 * process alive, and cleared as soon as the promise settles.
 */
export function timeBox<T>(promise: PromiseLike<T>, ms: number, onTimeout: () => Error): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return Promise.resolve(promise)
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms)
    timer.unref()
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function'
}
