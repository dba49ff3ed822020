import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import { SmError } from '../../../kernel'
import type { Candidate } from '../discovery'
import { importFailure, type PluginStatics } from '../plugin-module'
import { Channel } from './channel'
import type { Inspect, InspectorData } from './protocol'
import { warmTranspileCache } from './transpiler'
import { startPluginWorker, workerFault } from './worker'

export interface InspectorOptions {
  /** Whether a module is imported in a thread of its own at once (its import ended its thread last time). */
  readonly alone?: (plugin: string) => boolean
  /** The threads' entry file (the composition root `plugin-thread.js`). */
  readonly entry: string
  /** jiti's transpile cache (false: none). */
  readonly cacheDir: string | false
  /** A plugin's heap limit (V8's old generation), in MB: its own, as its thread will have. */
  readonly maxMemoryMb: (plugin: string) => Promise<number>
  /** How long one module's import may take (plugins.import_timeout_s). */
  readonly importMs: number
}

/**
 * Imports plugin modules for discovery in worker threads, never in the manager's: a few threads
 * side by side, each importing one module after another (a thread's start and jiti's load are
 * paid once per thread, not per module). When a thread fails while it imports a module (its
 * top-level code loops past plugins.import_timeout_s, leaks, exits, or a stray error of a module
 * before it ends the thread), that module is imported again in a thread of its own, which is
 * ended once it has answered: so a module that fails costs only its own import, which fails
 * with a coded reason, and is never blamed on another.
 */
export async function inspectInThread(
  candidates: readonly Candidate[],
  options: InspectorOptions,
): Promise<Map<string, PluginStatics | SmError>> {
  await warmTranspileCache(candidates, options.cacheDir, options.importMs)
  const results = new Map<string, PluginStatics | SmError>()
  const queue = [...candidates]
  const lane = async () => {
    let thread: InspectorThread | undefined
    try {
      for (let candidate = queue.shift(); candidate; candidate = queue.shift()) {
        const mb = await options.maxMemoryMb(candidate.name)
        if (thread && thread.mb !== mb) await thread.end()
        let result: Awaited<ReturnType<InspectorThread['inspect']>> = FAILED
        if (!options.alone?.(candidate.name)) {
          if (!thread?.open) thread = new InspectorThread(options, mb, 'plugin-inspector')
          result = await thread.inspect(candidate)
          if (!thread.open) await thread.end()
        }
        if (result === FAILED) {
          const alone = new InspectorThread(options, mb, `plugin-inspector:${candidate.name}`)
          result = await alone.inspect(candidate)
          await alone.end()
        }
        results.set(candidate.name, result === FAILED ? importFailure(candidate.name, 'its thread failed') : result)
      }
    } finally {
      await thread?.end()
    }
  }
  await Promise.all(Array.from({ length: Math.min(queue.length, SIDE_BY_SIDE) }, lane))
  // In the order they were found (the callers record facts in it).
  return new Map(candidates.map(({ name }) => [name, results.get(name) as PluginStatics | SmError]))
}

/** How many modules are imported at once (each thread one at a time). */
const SIDE_BY_SIDE = Math.max(1, Math.min(4, availableParallelism()))

const FAILED = Symbol('the thread failed')

/**
 * A thread that imports plugin modules one at a time and answers what each says of itself. Its
 * first failure (a timeout, an exit, an error, a malformed message) ends it: the module it was
 * importing gets the reason when it is alone in the thread, else FAILED (to be tried alone).
 */
class InspectorThread {
  readonly mb: number
  readonly #options: InspectorOptions
  readonly #worker: Worker
  readonly #channel: Channel<Inspect, never, never, unknown>
  readonly #online: Promise<void>
  #imports = 0
  #failed: ((why: Fault) => void) | undefined
  #ended = false

  constructor(options: InspectorOptions, mb: number, name: string) {
    this.mb = mb
    this.#options = options
    const data: InspectorData = { inspect: true, cacheDir: options.cacheDir }
    const worker = startPluginWorker(options.entry, name, data, mb)
    this.#worker = worker
    this.#online = new Promise((resolve) => worker.once('online', () => resolve()))
    const fail = (why: Fault) => {
      this.#ended = true
      this.#failed?.(why)
    }
    this.#channel = new Channel<Inspect, never, never, unknown>({
      post: (message) => worker.postMessage(message),
      worker: false,
      onMessage: () => malformed(),
      onBadMessage: () => malformed(),
    })
    const malformed = () =>
      fail(
        (plugin, where) =>
          new SmError('SM_ERR_PLUGIN_CRASHED', { plugin, where, reason: 'its thread sent a malformed message' }),
      )
    worker.on('message', (message: unknown) => this.#channel.receive(message))
    worker.on('error', (error: Error & { code?: string }) =>
      fail((plugin, where) => workerFault(error, plugin, where, mb)),
    )
    worker.on('exit', (code: number) =>
      fail((plugin, where) => new SmError('SM_ERR_PLUGIN_EXITED', { plugin, where, code })),
    )
  }

  /** Whether it may import another module. */
  get open(): boolean {
    return !this.#ended
  }

  /** Imports `candidate`: what it says of itself, why its import failed, or FAILED (the thread failed, among others). */
  async inspect(candidate: Candidate): Promise<PluginStatics | SmError | typeof FAILED> {
    const plugin = candidate.name
    const first = this.#imports++ === 0
    // From when the thread runs: its own start is not the module's time.
    await this.#online
    return new Promise((resolve) => {
      let settled = false
      const done = (result: PluginStatics | SmError | typeof FAILED) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.#failed = undefined
        resolve(result)
      }
      // Alone in its thread (its first import, nothing before it), a failure of the thread is its own.
      const own = (why: Fault) => (first ? why(plugin, WHERE) : FAILED)
      this.#failed = (why) => done(own(why))
      if (this.#ended) return done(FAILED)
      const timer = setTimeout(() => {
        this.#ended = true
        done(
          own(
            (plugin, phase) =>
              new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', {
                plugin,
                phase,
                ms: this.#options.importMs,
                setting: 'plugins.import_timeout_s',
              }),
          ),
        )
      }, this.#options.importMs)
      this.#channel.call({ candidate }, { meta: undefined }).then(
        (statics) => done(statics as PluginStatics),
        (error: unknown) => done(this.#ended ? FAILED : importFailure(plugin, error)),
      )
    })
  }

  async end(): Promise<void> {
    this.#ended = true
    await this.#worker.terminate()
  }
}

const WHERE = 'its import (its top-level code)'

type Fault = (plugin: string, where: string) => SmError
