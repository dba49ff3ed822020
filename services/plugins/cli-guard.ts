import { errorLine, type SmError, toSmError } from '../../kernel/errors'
import type { CliLimits } from './contract'
import { LoopWatcher } from './loop-watchdog'

/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Runs a plugin's command or menu item in this CLI process within `limits`: past its deadline
 * the run rejects with `timedOut()` (the command then fails with that code and the process ends);
 * when its code holds the event loop so that this cannot happen (a `while (true) {}`), a watcher
 * thread writes the same coded error to stderr and ends the process (SIGKILL: the blocked thread
 * can run nothing else, Ctrl-C included), so a command never hangs for good and never exits 0.
 */
export async function guardCliRun<T>(timedOut: () => SmError, limits: CliLimits, run: () => Promise<T>): Promise<T> {
  // Past what a timer can hold (about 24.8 days): no limit, rather than Node's 1 ms.
  const deadlineMs = (limits.deadlineMs ?? 0) > MAX_TIMER_MS ? 0 : (limits.deadlineMs ?? 0)
  const blockedMs = limits.blockedMs ?? 0
  if (deadlineMs <= 0 && blockedMs <= 0) return run()
  const { code, message } = timedOut()
  const watcher = new LoopWatcher({
    blockedMs,
    deadlineMs,
    error: { code, message },
    onError: (error) =>
      process.stderr.write(`Warning: the plugin's code runs unwatched: ${errorLine(toSmError(error))}\n`),
  })
  let timer: NodeJS.Timeout | undefined
  let late = false
  try {
    const outOfTime =
      deadlineMs > 0
        ? new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => {
              late = true
              reject(timedOut())
            }, deadlineMs)
          })
        : undefined
    return await (outOfTime ? Promise.race([run(), outOfTime]) : run())
  } finally {
    clearTimeout(timer)
    // Past its deadline the process is about to end with the error: the watcher (unref'd) stays
    // armed in case what the plugin left running holds the loop before it does.
    if (!late) void watcher.stop()
  }
}
