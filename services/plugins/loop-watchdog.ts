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

// Slots of the shared array: the main thread's heartbeat and the last plugin code it entered.
const HEARTBEAT = 0
const PLUGIN = 1
const HOOK = 2
const BEAT_MS = 200

/**
 * Notices when plugin code blocks the event loop for good (a synchronous infinite loop in a
 * hook): nothing on that thread, signals included, runs any more. A worker thread watches a
 * heartbeat; past `limitMs` without one it writes a coded error naming the plugin code that
 * last started, records it in `blockedFile` (the next process makes it a `plugins:blocked` fact, so
 * no later start loads that plugin until it is enabled or reloaded), and
 * ends the process (SIGKILL: the blocked thread can run nothing else). Its timer and thread are
 * unref'd.
 */
export class LoopWatchdog {
  readonly #state = new Int32Array(new SharedArrayBuffer(12))
  readonly #names: string[] = []
  readonly #worker: Worker
  readonly #beat: NodeJS.Timeout

  constructor(options: { limitMs: number; blockedFile: string; logFile: string }) {
    this.#worker = new Worker(WATCHER, {
      eval: true,
      workerData: { state: this.#state, ...options, beatMs: BEAT_MS },
      stdout: false,
      stderr: false,
    })
    this.#worker.unref()
    this.#beat = setInterval(() => Atomics.add(this.#state, HEARTBEAT, 1), BEAT_MS)
    this.#beat.unref()
  }

  /** Marks plugin code as running (cheap: two atomic stores). */
  enter(plugin: string, hook: string): void {
    Atomics.store(this.#state, PLUGIN, this.#id(plugin))
    Atomics.store(this.#state, HOOK, this.#id(hook))
  }

  async stop(): Promise<void> {
    clearInterval(this.#beat)
    await this.#worker.terminate()
  }

  #id(name: string): number {
    let id = this.#names.indexOf(name)
    if (id < 0) {
      id = this.#names.push(name) - 1
      this.#worker.postMessage({ id, name })
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

// The worker: plain JavaScript, run with eval so it needs no file of its own. It writes with
// fs.writeSync, because a worker's process.stderr goes through the (blocked) main thread.
const WATCHER = `
const { workerData, parentPort } = require('node:worker_threads')
const fs = require('node:fs')
const { state, limitMs, blockedFile, logFile, beatMs } = workerData
const names = new Map()
parentPort.on('message', ({ id, name }) => names.set(id + 1, name))
let last = Atomics.load(state, 0)
let since = Date.now()
setInterval(() => {
  const now = Atomics.load(state, 0)
  if (now !== last) { last = now; since = Date.now(); return }
  const ms = Date.now() - since
  if (ms < limitMs) return
  const plugin = names.get(Atomics.load(state, 1)) || 'unknown'
  const hook = names.get(Atomics.load(state, 2)) || 'unknown'
  const message = "The plugin '" + plugin + "' blocked the manager's event loop for " + Math.round(ms / 1000) + " s (it last entered " + hook + "), so nothing else could run, not even Ctrl-C. The process was ended; the next start does not load '" + plugin + "' until 'server-manager plugin enable " + plugin + "' or 'plugin reload'. Remove the synchronous loop from the plugin."
  try { fs.writeFileSync(blockedFile, JSON.stringify({ plugin, hook, ms, at: new Date().toISOString() }) + '\\n') } catch {}
  try { fs.appendFileSync(logFile, JSON.stringify({ time: new Date().toISOString(), level: 'error', name: 'plugins', message, code: 'SM_ERR_PLUGIN_BLOCKED_LOOP' }) + '\\n') } catch {}
  try { fs.writeSync(2, 'Error [SM_ERR_PLUGIN_BLOCKED_LOOP]: ' + message + '\\n') } catch {}
  process.kill(process.pid, 'SIGKILL')
}, beatMs)
`
