/**
 * Waits until the process gets SIGINT or SIGTERM. Signal handlers do not keep Node alive, so a
 * referenced timer does while waiting; it is cleared as soon as the signal arrives.
 */
export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => {}, 1 << 30)
    const done = (signal: NodeJS.Signals) => {
      clearInterval(keepAlive)
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve(signal)
    }
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
}
