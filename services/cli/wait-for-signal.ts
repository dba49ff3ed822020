/**
 * Waits until the process gets SIGINT or SIGTERM, or `until` settles first (then it resolves
 * with undefined and leaves nothing behind). Signal handlers do not keep Node alive, so a
 * referenced timer does while waiting; it is cleared as soon as either happens.
 */
export function waitForSignal(until?: Promise<unknown>): Promise<NodeJS.Signals | undefined> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => {}, 1 << 30)
    const done = (signal: NodeJS.Signals | undefined) => {
      clearInterval(keepAlive)
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve(signal)
    }
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
    until?.then(
      () => done(undefined),
      () => done(undefined),
    )
  })
}
