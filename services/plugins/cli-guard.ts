import { Worker } from 'node:worker_threads'
import { errorLine, type SmError } from '../../kernel/errors'

/** How long a plugin's code in a CLI process may run, and may hold the event loop. */
export interface CliLimits {
  /** The whole run (a command's `static timeout`); 0 or none: no limit. */
  readonly deadlineMs?: number
  /** The longest the code may block the event loop (a menu item waits on the user, but must not spin). */
  readonly blockedMs?: number
}

// Slots of the shared state: set once the run ended (or timed out here); the main thread's heartbeat.
const DONE = 0
const BEAT = 1
const BEAT_MS = 200
/** How long past the deadline the watcher waits for the main thread to end the run itself. */
const GRACE_MS = 2000
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
  const state = new Int32Array(new SharedArrayBuffer(8))
  const watcher = new Worker(WATCHER, {
    eval: true,
    workerData: { state, deadlineMs, blockedMs, graceMs: GRACE_MS, beatMs: BEAT_MS, line: errorLine(timedOut()) },
    stdout: false,
    stderr: false,
  })
  watcher.unref()
  watcher.on('error', () => {})
  const beat = setInterval(() => Atomics.add(state, BEAT, 1), BEAT_MS)
  beat.unref()
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
    if (!late) {
      Atomics.store(state, DONE, 1)
      clearInterval(beat)
      void watcher.terminate()
    }
  }
}

// Plain JavaScript run with eval, so it needs no file of its own. It writes with fs.writeSync: a
// worker's process.stderr goes through the (blocked) main thread.
const WATCHER = `
const { workerData } = require('node:worker_threads')
const fs = require('node:fs')
const { state, deadlineMs, blockedMs, graceMs, beatMs, line } = workerData
// Monotonic time, and only while this process runs: a pause of the whole process (Ctrl-Z, a
// suspended machine) shows as a late tick of this thread's own, and is not counted.
let tick = performance.now()
let elapsed = 0
let beat = Atomics.load(state, 1)
let beatAt = 0
setInterval(() => {
  const now = performance.now()
  const step = now - tick
  tick = now
  if (step <= 5 * beatMs) elapsed += step
  if (Atomics.load(state, 0) === 1) return
  const current = Atomics.load(state, 1)
  if (current !== beat) { beat = current; beatAt = elapsed }
  // Past the deadline the main thread ends the run itself, however long its shutdown takes,
  // unless its code holds the loop (no beat for the grace).
  const late = deadlineMs > 0 && elapsed >= deadlineMs + graceMs && elapsed - beatAt >= graceMs
  const blocked = blockedMs > 0 && elapsed - beatAt >= blockedMs
  if (!late && !blocked) return
  try { fs.writeSync(2, line + '\\n') } catch {}
  process.kill(process.pid, 'SIGKILL')
}, beatMs)
`
