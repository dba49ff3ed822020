import { Worker } from 'node:worker_threads'
import { reasonOf, SmError } from '../../../kernel'

/** V8's young generation of a plugin's thread (MB): an idle thread stays small (bench: threads), and scavenges stay cheap. */
const YOUNG_GENERATION_MB = 2

/**
 * Starts a thread of the plugin thread entry (a plugin's, or an inspector's) with the plugin's
 * heap limit. What its code prints goes to the manager's own output, as it did in-process.
 */
export function startPluginWorker(entry: string, name: string, workerData: unknown, maxMemoryMb: number): Worker {
  return new Worker(entry, {
    workerData,
    name,
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    stdout: false,
    stderr: false,
  })
}

/** Why a plugin's thread ended with an error: out of its heap, or any other crash, `where` its code was. */
export function workerFault(error: Error & { code?: string }, plugin: string, where: string, mb: number): SmError {
  return error.code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? new SmError('SM_ERR_PLUGIN_OUT_OF_MEMORY', { plugin, where, mb })
    : new SmError('SM_ERR_PLUGIN_CRASHED', { plugin, where, reason: reasonOf(error) }, { cause: error })
}
