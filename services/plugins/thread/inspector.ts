import { Worker } from 'node:worker_threads'
import { reasonOf, SmError } from '../../../kernel'
import type { Candidate } from '../discovery'
import type { PluginStatics } from '../plugin-module'
import type { Inspect, Inspected, InspectorData } from './protocol'
import { fromThreadError } from './wire'

export interface InspectorOptions {
  /** The threads' entry file (the composition root `plugin-thread.js`). */
  readonly entry: string
  /** jiti's transpile cache (false: none). */
  readonly cacheDir: string | false
  /** The inspector's heap limit (V8's old generation), in MB. */
  readonly maxMemoryMb: number
  /** How long one module's import may take (plugins.import_timeout_s). */
  readonly importMs: number
}

/**
 * Imports plugin modules for discovery in a worker thread, never in the manager's: a module
 * whose top-level code loops, leaks, exits or throws costs only its own import, which fails
 * with a coded reason (the other candidates are imported by a fresh thread). The thread lives
 * for one call.
 */
export async function inspectInThread(
  candidates: readonly Candidate[],
  options: InspectorOptions,
): Promise<Map<string, PluginStatics | SmError>> {
  const results = new Map<string, PluginStatics | SmError>()
  let worker: Worker | undefined
  let exited = false
  try {
    for (const candidate of candidates) {
      if (!worker || exited) {
        exited = false
        const started = new Worker(options.entry, {
          workerData: { inspect: true, cacheDir: options.cacheDir } satisfies InspectorData,
          name: 'plugin-inspector',
          resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb },
          stdout: false,
          stderr: false,
        })
        // A module's stray timer may throw after its import answered: that ends only this thread.
        started
          .on('error', () => {})
          .on('exit', () => {
            if (worker === started) exited = true
          })
        worker = started
      }
      const answer = await inspectOne(worker, candidate, options)
      results.set(candidate.name, answer.result)
      if (answer.ended) worker = undefined
    }
  } finally {
    await worker?.terminate()
  }
  return results
}

/** One candidate's import; `ended`: the thread is gone (ended by the fault, or terminated for hanging). */
function inspectOne(
  worker: Worker,
  candidate: Candidate,
  { maxMemoryMb, importMs }: InspectorOptions,
): Promise<{ result: PluginStatics | SmError; ended: boolean }> {
  const plugin = candidate.name
  const where = 'its import (its top-level code)'
  return new Promise((resolve) => {
    const done = (result: PluginStatics | SmError, ended: boolean) => {
      clearTimeout(timer)
      worker.off('message', onMessage).off('error', onError).off('exit', onExit)
      resolve({ result, ended })
    }
    const onMessage = (answer: Inspected) => {
      if (answer?.ok === true) done(answer.statics, false)
      else if (answer?.ok === false) done(asPluginError(plugin, fromThreadError(answer.error)), false)
      else
        done(
          new SmError('SM_ERR_PLUGIN_CRASHED', { plugin, where, reason: 'its thread sent a malformed message' }),
          true,
        )
    }
    const onError = (error: Error & { code?: string }) =>
      done(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new SmError('SM_ERR_PLUGIN_OUT_OF_MEMORY', { plugin, where, mb: maxMemoryMb })
          : new SmError('SM_ERR_PLUGIN_CRASHED', { plugin, where, reason: reasonOf(error) }, { cause: error }),
        true,
      )
    const onExit = (code: number) => done(new SmError('SM_ERR_PLUGIN_EXITED', { plugin, where, code }), true)
    const timer = setTimeout(() => {
      done(
        new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', {
          plugin,
          phase: where,
          ms: importMs,
          setting: 'plugins.import_timeout_s',
        }),
        true,
      )
      void worker.terminate()
    }, importMs)
    worker.on('message', onMessage).on('error', onError).on('exit', onExit)
    worker.postMessage({ candidate } satisfies Inspect)
  })
}

/** The import's own error when it is coded (a syntax error, no class, no version); any other as an import failure. */
function asPluginError(plugin: string, error: Error): SmError {
  return error instanceof SmError
    ? error
    : new SmError('SM_ERR_PLUGIN_IMPORT_FAILED', { plugin, reason: reasonOf(error) }, { cause: error })
}
