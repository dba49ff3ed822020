import { availableParallelism } from 'node:os'
import { SmError } from '../../../kernel'
import type { Candidate } from '../discovery'
import { importFailure, type PluginStatics } from '../plugin-module'
import { Channel } from './channel'
import type { Inspect, InspectorData } from './protocol'
import { warmTranspileCache } from './transpiler'
import { startPluginWorker, workerFault } from './worker'

export interface InspectorOptions {
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
 * Imports plugin modules for discovery in worker threads, never in the manager's: each module in
 * a thread of its own (a few side by side), ended once it has answered, so that a module whose
 * top-level code loops, leaks, exits or throws (also later, from a timer or a forgotten promise)
 * costs only its own import, which fails with a coded reason, and is never blamed on another.
 */
export async function inspectInThread(
  candidates: readonly Candidate[],
  options: InspectorOptions,
): Promise<Map<string, PluginStatics | SmError>> {
  await warmTranspileCache(candidates, options.cacheDir, options.importMs)
  const results = new Map<string, PluginStatics | SmError>()
  const queue = [...candidates]
  const inspector = async () => {
    for (let candidate = queue.shift(); candidate; candidate = queue.shift())
      results.set(
        candidate.name,
        await inspectOne(candidate, options).catch((error: unknown) => importFailure(candidate.name, error)),
      )
  }
  await Promise.all(Array.from({ length: Math.min(queue.length, SIDE_BY_SIDE) }, inspector))
  // In the order they were found (the callers record facts in it).
  return new Map(candidates.map(({ name }) => [name, results.get(name) as PluginStatics | SmError]))
}

/** How many modules are imported at once (each in its own thread). */
const SIDE_BY_SIDE = Math.max(1, Math.min(4, availableParallelism()))

/** One candidate's import, in a thread of its own that is ended once it has answered. */
async function inspectOne(candidate: Candidate, options: InspectorOptions): Promise<PluginStatics | SmError> {
  const plugin = candidate.name
  const where = 'its import (its top-level code)'
  const mb = await options.maxMemoryMb(plugin)
  const data: InspectorData = { inspect: true, cacheDir: options.cacheDir }
  const worker = startPluginWorker(options.entry, `plugin-inspector:${plugin}`, data, mb)
  // What the module's code does after it answered (a stray timer's throw) ends only this thread.
  worker.on('error', () => {})
  const result = await new Promise<PluginStatics | SmError>((resolve) => {
    let timer: NodeJS.Timeout | undefined
    const done = (result: PluginStatics | SmError) => {
      clearTimeout(timer)
      worker.off('message', onMessage).off('error', onError).off('exit', onExit)
      resolve(result)
    }
    const channel = new Channel<Inspect, never, never, unknown>({
      post: (message) => worker.postMessage(message),
      worker: false,
      onMessage: () => malformed(),
      onBadMessage: () => malformed(),
    })
    const malformed = () =>
      done(new SmError('SM_ERR_PLUGIN_CRASHED', { plugin, where, reason: 'its thread sent a malformed message' }))
    const onMessage = (message: unknown) => channel.receive(message)
    const onError = (error: Error & { code?: string }) => done(workerFault(error, plugin, where, mb))
    const onExit = (code: number) => done(new SmError('SM_ERR_PLUGIN_EXITED', { plugin, where, code }))
    // From when the thread runs: its own start is not the module's time.
    worker.once('online', () => {
      timer = setTimeout(
        () =>
          done(
            new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', {
              plugin,
              phase: where,
              ms: options.importMs,
              setting: 'plugins.import_timeout_s',
            }),
          ),
        options.importMs,
      )
    })
    worker.on('message', onMessage).on('error', onError).on('exit', onExit)
    channel.call({ candidate }, { meta: undefined }).then(
      (statics) => done(statics as PluginStatics),
      (error: unknown) => done(importFailure(plugin, error)),
    )
  })
  await worker.terminate()
  return result
}
