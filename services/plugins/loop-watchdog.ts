import { readFileSync, rmSync } from 'node:fs'
import { Script } from 'node:vm'
import { Worker } from 'node:worker_threads'

/** What the watchdog leaves behind when it ends a blocked process, for the next start. */
export interface BlockedRecord {
  readonly plugin: string
  readonly hook: string
  readonly ms: number
  readonly at: string
}

const trampoline = new Script('globalThis.__smPluginCall()')

/**
 * Runs `fn` synchronously, cutting it off when its synchronous part runs longer than `ms`
 * (a `while (true) {}` in `onLoad`): throws a `timed out` error then. Only the synchronous part
 * is bounded; what the function awaits runs later, outside. Costs a thread start per call, so it
 * guards lifecycle hooks, not every event.
 */
export function runBounded<T>(fn: () => T, ms: number): T {
  const host = globalThis as { __smPluginCall?: () => T }
  const previous = host.__smPluginCall
  host.__smPluginCall = fn
  try {
    return trampoline.runInThisContext({ timeout: Math.max(1, Math.floor(ms)) }) as T
  } finally {
    host.__smPluginCall = previous
  }
}

export function isBoundedTimeout(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT'
}

/** What a loop watcher does about this process's event loop. */
export interface LoopWatch {
  /** Past this long without a beat of the main thread (its loop held), the process is ended; 0: never. */
  readonly blockedMs: number
  /**
   * The whole run's deadline (0 or none: no deadline). The main thread ends a run that outlives it
   * itself; past it and a grace, the process is ended if the loop has been held for the grace.
   */
  readonly deadlineMs?: number
  /** The coded error written to stderr: `{plugin}` and `{hook}` in its message are the plugin code last entered. */
  readonly error: { readonly code: string; readonly message: string }
  /** Where the manager's watcher leaves the record for the next start (`readBlockedRecord`) and its log line. */
  readonly record?: { readonly blockedFile: string; readonly logFile: string }
  /** The watcher thread itself failed (it then watches no more). */
  readonly onError?: (error: Error) => void
}

// Slots of the shared state: the main thread's heartbeat, the plugin code it last entered, and
// set once the watch is over.
const BEAT = 0
const PLUGIN = 1
const HOOK = 2
const DONE = 3
const BEAT_MS = 200
/** How long past the deadline the watcher waits for the main thread to end the run itself. */
const GRACE_MS = 2000

/**
 * Notices when code blocks this process's event loop (a synchronous endless loop in a plugin's
 * hook, command or menu item): nothing on that thread, signals included, runs any more. A worker
 * thread follows a heartbeat of the main thread; when the loop is held past the limit it writes
 * the coded error (in the manager also a record for the next start, which then does not load the
 * plugin, and a log line) and ends the process (SIGKILL: the blocked thread can run nothing else).
 * It counts monotonic time while the process runs: a pause of the whole process (Ctrl-Z, a
 * suspended machine) or a step of the wall clock is not taken for a held loop. Its timer and
 * thread are unref'd.
 */
export class LoopWatcher {
  readonly #state = new Int32Array(new SharedArrayBuffer(16))
  readonly #names: string[] = []
  readonly #worker: Worker
  readonly #beat: NodeJS.Timeout

  constructor(watch: LoopWatch) {
    const { onError, ...data } = watch
    this.#worker = new Worker(WATCHER, {
      eval: true,
      workerData: { state: this.#state, beatMs: BEAT_MS, graceMs: GRACE_MS, deadlineMs: 0, ...data },
      stdout: false,
      stderr: false,
    })
    this.#worker.unref()
    this.#worker.on('error', (error) => onError?.(error))
    this.#beat = setInterval(() => Atomics.add(this.#state, BEAT, 1), BEAT_MS)
    this.#beat.unref()
  }

  /** Marks plugin code as running (cheap: two atomic stores). */
  enter(plugin: string, hook: string): void {
    Atomics.store(this.#state, PLUGIN, this.#id(plugin))
    Atomics.store(this.#state, HOOK, this.#id(hook))
  }

  /** Ends the watch (at once: the thread acts no more, even before it has ended). */
  stop(): Promise<number> {
    Atomics.store(this.#state, DONE, 1)
    clearInterval(this.#beat)
    return this.#worker.terminate()
  }

  #id(name: string): number {
    let id = this.#names.indexOf(name)
    if (id < 0) {
      id = this.#names.push(name) - 1
      this.#worker.postMessage({ id: id + 1, name })
    }
    return id + 1
  }
}

/**
 * The record a watchdog left for this data directory, if any. It is only a hand-over (the
 * blocked thread could not write to the database): the reader records it as a
 * `plugins:blocked` fact and then removes the file (`clearBlockedRecord`), so a process killed
 * in between leaves it for the next one. A damaged record reads as none and is removed at once.
 */
export function readBlockedRecord(blockedFile: string): BlockedRecord | undefined {
  let text: string
  try {
    text = readFileSync(blockedFile, 'utf8')
  } catch {
    return undefined // none: the usual case
  }
  try {
    const record = JSON.parse(text) as BlockedRecord
    if (typeof record.plugin === 'string') return record
  } catch {
    // damaged: removed below, so it is not read again at every start
  }
  clearBlockedRecord(blockedFile)
  return undefined
}

export function clearBlockedRecord(blockedFile: string): void {
  rmSync(blockedFile, { force: true })
}

// The watcher: plain JavaScript, run with eval so it needs no file of its own. It writes with
// fs.writeSync, because a worker's process.stderr goes through the (blocked) main thread.
const WATCHER = `
const { workerData, parentPort } = require('node:worker_threads')
const fs = require('node:fs')
const { state, beatMs, graceMs, blockedMs, deadlineMs, error, record } = workerData
const names = new Map()
parentPort.on('message', ({ id, name }) => names.set(id, name))
// Monotonic time, counted only while this process runs: a pause of the whole process shows as a
// late tick of this thread's own, and is not counted.
let tick = performance.now()
let elapsed = 0
let beat = Atomics.load(state, ${BEAT})
let beatAt = 0
setInterval(() => {
  const now = performance.now()
  const step = now - tick
  tick = now
  if (step <= 5 * beatMs) elapsed += step
  if (Atomics.load(state, ${DONE}) === 1) return
  const current = Atomics.load(state, ${BEAT})
  if (current !== beat) { beat = current; beatAt = elapsed }
  const held = elapsed - beatAt
  // Past the deadline the main thread ends the run itself, however long its shutdown takes,
  // unless the loop is held (no beat for the grace).
  const late = deadlineMs > 0 && elapsed >= deadlineMs + graceMs && held >= graceMs
  if (!late && !(blockedMs > 0 && held >= blockedMs)) return
  const plugin = names.get(Atomics.load(state, ${PLUGIN})) || 'unknown'
  const hook = names.get(Atomics.load(state, ${HOOK})) || 'unknown'
  const message = error.message.replaceAll('{plugin}', plugin).replaceAll('{hook}', hook)
  if (record) {
    const at = new Date().toISOString()
    try { fs.writeFileSync(record.blockedFile, JSON.stringify({ plugin, hook, ms: Math.round(held), at }) + '\\n') } catch {}
    try { fs.appendFileSync(record.logFile, JSON.stringify({ time: at, level: 'error', name: 'plugins', message, code: error.code }) + '\\n') } catch {}
  }
  try { fs.writeSync(2, 'Error [' + error.code + ']: ' + message + '\\n') } catch {}
  process.kill(process.pid, 'SIGKILL')
}, beatMs)
`
