import type { SmError } from '../../../kernel'
import type { Operation } from '../api-operation'
import type { LoadOptions, RunningPlugin } from '../loaded-plugin'
import type { HostPool } from './plugin-host'
import type { ApiName } from './protocol'
import type { ThreadedPlugin } from './threaded-plugin'

/** How a plugin in a thread is started and told of its end (ThreadedPlugin). */
export interface ThreadOptions extends LoadOptions {
  /** Where its thread comes from (plugin-host.ts). */
  readonly hosts: HostPool
  /** A thread of its own (plugins.isolation 'thread'), not one shared with other plugins. */
  readonly ownThread: boolean
  /** The plugin's heap limit (V8's old generation), from plugins.max_memory_mb. */
  readonly maxMemoryMb: number
  /** What it may hold outside its heap (`Buffer`s), from plugins.max_external_mb. */
  readonly maxExternalMb: number
  /** How long its module may take to import (plugins.import_timeout_s). */
  readonly importMs: number
  /** What the manager logs at, so the thread does not post lines that would be dropped. */
  readonly logLevel: string
  /** jiti's transpile cache, shared with the manager's importer (false: none). */
  readonly cacheDir: string | false
  /**
   * Told once when the thread ends by a fault (a timeout, out of memory, process.exit, an
   * uncaught error): by then its hooks and listeners are gone and its calls have failed.
   */
  readonly onFault: (plugin: RunningPlugin, fault: SmError) => void
  /** Told once when its thread ended by another plugin's fault: by then it is ended, and is to be started again. */
  readonly onDisplaced: (plugin: RunningPlugin) => void
  /** The plugin started again under `name` after it was displaced, once loaded (within the hook timeout), else undefined. */
  readonly successor: (name: string) => Promise<ThreadedPlugin | undefined>
}

/** The names of `this.api` a thread offers: each operation and its aliases, with the function it keeps there. */
export function apiNames(operations: Readonly<Record<string, Operation>>): ApiName[] {
  return Object.entries(operations).flatMap(([name, operation]) => {
    const takes = name === 'listenForEvent' ? 'listener' : name === 'runTask' ? 'task' : undefined
    return [name, ...operation.aliases].map((as) => (takes ? { name: as, takes } : { name: as }))
  })
}
