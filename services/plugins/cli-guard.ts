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

/**
 * Runs a plugin's command or menu item in this CLI process within `limits`: past its deadline
 * the run rejects with `timedOut()` (the command then fails with that code and the process ends);
 * when its code holds the event loop so that this cannot happen (a `while (true) {}`), a watcher
 * thread writes the same coded error to stderr and ends the process (SIGKILL: the blocked thread
 * can run nothing else, Ctrl-C included), so a command never hangs for good and never exits 0.
 */
export async function guardCliRun<T>(timedOut: () => SmError, limits: CliLimits, run: () => Promise<T>): Promise<T> {
  const deadlineMs = limits.deadlineMs ?? 0
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
  try {
    const outOfTime =
      deadlineMs > 0
        ? new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => {
              Atomics.store(state, DONE, 1)
              reject(timedOut())
            }, deadlineMs)
          })
        : undefined
    return await (outOfTime ? Promise.race([run(), outOfTime]) : run())
  } finally {
    Atomics.store(state, DONE, 1)
    clearTimeout(timer)
    clearInterval(beat)
    void watcher.terminate()
  }
}

// Plain JavaScript run with eval, so it needs no file of its own. It writes with fs.writeSync: a
// worker's process.stderr goes through the (blocked) main thread.
const WATCHER = `
const { workerData } = require('node:worker_threads')
const fs = require('node:fs')
const { state, deadlineMs, blockedMs, graceMs, beatMs, line } = workerData
const began = Date.now()
let beat = Atomics.load(state, 1)
let beatAt = began
setInterval(() => {
  if (Atomics.load(state, 0) === 1) return
  const now = Date.now()
  const current = Atomics.load(state, 1)
  if (current !== beat) { beat = current; beatAt = now }
  const late = deadlineMs > 0 && now - began >= deadlineMs + graceMs
  const blocked = blockedMs > 0 && now - beatAt >= blockedMs
  if (!late && !blocked) return
  try { fs.writeSync(2, line + '\\n') } catch {}
  process.kill(process.pid, 'SIGKILL')
}, beatMs)
`
