import { SmError } from '../../kernel'
import type { DiscoverySync } from './discovery-sync'
import type { FaultPolicy } from './fault-policy'
import { planLoad } from './load-order'
import { LoadedPlugin, type LoadOptions, type RunningPlugin } from './loaded-plugin'
import type { ManagerOptions } from './plugin-manager'
import type { PluginDefinition, PluginStatics } from './plugin-module'
import type { RegistryFacts } from './registry-facts'
import { mayLoad, type StoredRecord } from './registry-projection'
import { HostPool, isDisplacement } from './thread/plugin-host'
import { ThreadedPlugin } from './thread/threaded-plugin'

/** Whether a reconcile runs a plugin whose own code failed again: all (start, reload), the named (enable), none. */
export type Retry = (plugin: string) => boolean
export const retryAll: Retry = () => true
export const retryOnly = (names: Iterable<string>): Retry => {
  const chosen = new Set(names)
  return (plugin) => chosen.has(plugin)
}

const OWN_FAILURES = new Set([
  'SM_ERR_PLUGIN_LOAD_FAILED',
  'SM_ERR_PLUGIN_LOAD_TIMEOUT',
  'SM_ERR_PLUGIN_BLOCKED_LOOP',
  // A fault of its thread: restarted by the backoff's timer (or an enable, a reload, a new start), never by another change.
  'SM_ERR_PLUGIN_TIMEOUT',
  'SM_ERR_PLUGIN_OUT_OF_MEMORY',
  'SM_ERR_PLUGIN_EXITED',
  'SM_ERR_PLUGIN_CRASHED',
])
/** How a module fails to be a plugin at all (its import, its class, its version or engines). */
const IMPORT_FAILURES = new Set([
  'SM_ERR_PLUGIN_IMPORT_FAILED',
  'SM_ERR_PLUGIN_NO_CLASS',
  'SM_ERR_PLUGIN_INVALID_VERSION',
  'SM_ERR_PLUGIN_ENGINES_MISMATCH',
])

type StartThread = (definition: PluginStatics) => Promise<ThreadedPlugin>

/**
 * Brings the loaded plugins in line with the registry: exactly the enabled, valid ones whose
 * requirements load too, in load order (each plugin's thread started side by side with the
 * others', then activated one by one), and unloads the rest in reverse order.
 */
export class Reconciler {
  /** The plugins loaded, in load order. */
  readonly loaded = new Map<string, RunningPlugin>()
  readonly #options: ManagerOptions
  readonly #registry: RegistryFacts
  readonly #discovery: DiscoverySync
  readonly #faults: () => FaultPolicy
  /** Where plugin threads come from, made on the first load in threads. */
  #hosts: HostPool | undefined
  /** Who waits for a plugin to be loaded again (ThreadOptions.successor), by name. */
  readonly #arrivals = new Map<string, Set<(plugin: RunningPlugin) => void>>()

  constructor(options: ManagerOptions, registry: RegistryFacts, discovery: DiscoverySync, faults: () => FaultPolicy) {
    this.#options = options
    this.#registry = registry
    this.#discovery = discovery
    this.#faults = faults
  }

  /** Loads and unloads until the loaded plugins match the registry; resolves to the registry after. */
  async reconcile(retry: Retry): Promise<readonly StoredRecord[]> {
    const records = await this.#registry.records()
    const byName = new Map(records.map((r) => [r.name, r]))
    const wanted: PluginStatics[] = []
    for (const record of records) {
      if (!mayLoad(record)) continue
      // Its own code failed (constructor, onLoad): run it again only when asked to.
      const ownFailure = record.state === 'failed' && OWN_FAILURES.has(record.error?.code ?? '')
      if (ownFailure && !this.loaded.has(record.name) && !retry(record.name)) continue
      const definition = await this.#discovery.definition(record)
      if (definition) wanted.push(definition)
    }
    const plan = planLoad(wanted)
    const keep = new Set(plan.order.map((d) => d.candidate.name))
    for (const name of [...this.loaded.keys()].reverse()) {
      if (!keep.has(name)) await this.unload(name)
    }
    for (const [name, error] of plan.refused) await this.#registry.failed(byName.get(name), name, error, false)
    const options = {
      scope: this.#options.scope,
      logger: this.#options.rootLogger,
      timeoutMs: await this.#options.hookTimeoutMs(),
      onHookFailure: (plugin: string, event: string, error: SmError) => this.#faults().hookFailed(plugin, event, error),
      runTask: this.#options.runTask,
    }
    // Each plugin's thread starts at once (import, constructor), side by side with the others';
    // they are then activated (hooks bound, onLoad run) one by one in load order.
    const started = new Map<string, Promise<ThreadedPlugin>>()
    const guard = this.#options.crashGuard
    const startThread = await this.#threadStarter(options)
    if (startThread)
      for (const definition of plan.order) {
        const name = definition.candidate.name
        // One the last run died with starts alone, when its turn comes (#loadInOrder).
        if (this.loaded.has(name) || guard?.suspect(name)) continue
        const starting = startThread(definition)
        starting.catch(() => {}) // awaited below, in load order
        started.set(name, starting)
      }
    try {
      await this.#loadInOrder(plan.order, byName, options, started, startThread)
    } finally {
      // Started but not loaded (the loop above threw midway): no thread is left running unowned.
      for (const [name, starting] of started)
        if (!this.loaded.has(name))
          void starting.then(
            (plugin) => {
              if (this.loaded.get(name) === plugin) return
              guard?.gone(name)
              return plugin.discard()
            },
            () => {},
          )
    }
    const after = await this.#registry.records()
    await this.#registry.writeFile(after)
    this.#options.settled?.()
    return after
  }

  /** What starts a plugin in a thread, where plugins run in threads (plugins.isolation 'shared' or 'thread'). */
  async #threadStarter(options: Omit<LoadOptions, 'onEnter'>): Promise<StartThread | undefined> {
    const threads = this.#options.threads
    const isolation = await threads?.isolation()
    if (!threads || isolation === 'none') return undefined
    this.#hosts ??= new HostPool(threads.entry)
    const hosts = this.#hosts
    const importMs = await threads.importMs()
    const guard = this.#options.crashGuard
    return (definition) => {
      const name = definition.candidate.name
      guard?.loading(name)
      const starting = (async () =>
        ThreadedPlugin.start(definition, {
          ...options,
          hosts,
          ownThread: isolation === 'thread',
          cacheDir: threads.cacheDir,
          logLevel: threads.logLevel,
          maxMemoryMb: await threads.memoryMb(name),
          maxExternalMb: await threads.externalMb(),
          importMs,
          onFault: (faulted, error) => this.#faults().faulted(faulted, error),
          onDisplaced: (displaced) => this.#faults().displaced(displaced),
          successor: async (name) => {
            const next = await this.#arrival(name, options.timeoutMs)
            return next instanceof ThreadedPlugin ? next : undefined
          },
        }))()
      starting.then(
        () => guard?.running(name),
        () => guard?.gone(name),
      )
      return starting
    }
  }

  async #loadInOrder(
    order: readonly PluginStatics[],
    byName: ReadonlyMap<string, StoredRecord>,
    options: Omit<LoadOptions, 'onEnter'>,
    started: ReadonlyMap<string, Promise<ThreadedPlugin>>,
    startThread: StartThread | undefined,
  ): Promise<void> {
    const guard = this.#options.crashGuard
    for (const definition of order) {
      const name = definition.candidate.name
      if (this.loaded.has(name)) continue
      const blocked = definition.requires.find((required) => !this.loaded.has(required))
      if (blocked) {
        await started
          .get(name)
          ?.then((plugin) => plugin.discard())
          .catch(() => {})
        guard?.gone(name)
        const error = new SmError('SM_ERR_PLUGIN_REQUIRES_MISSING', { plugin: name, missing: `'${blocked}'` })
        await this.#registry.failed(byName.get(name), name, error, false)
        continue
      }
      try {
        let starting = started.get(name)
        if (!starting && startThread) {
          // A suspect of the last run's death: started once nothing else is being started.
          await Promise.allSettled(started.values())
          starting = startThread(definition)
        }
        let plugin: RunningPlugin
        guard?.loading(name)
        if (starting && startThread) {
          plugin = await activated(
            starting,
            () => startThread(definition),
            () => guard?.loading(name),
          )
        } else {
          // Its statics may come from an inspector thread: its class is imported here now.
          const imported =
            'cls' in definition
              ? (definition as PluginDefinition)
              : await this.#options.importer.import(definition.candidate)
          plugin = await LoadedPlugin.load(imported, { ...options, onEnter: this.#options.onEnter })
        }
        try {
          await this.#options.contribute?.(plugin)
        } catch (error) {
          await plugin.unload()
          throw error
        }
        this.loaded.set(name, plugin)
        for (const arrived of this.#arrivals.get(name) ?? []) arrived(plugin)
        this.#arrivals.delete(name)
        guard?.running(name)
        if (byName.get(name)?.state !== 'loaded')
          await this.#registry.fact('plugins:loaded', { name, version: definition.version })
        this.#options.logger.info(`plugin '${name}' ${definition.version} loaded`, { hooks: plugin.hooks.length })
      } catch (error) {
        guard?.gone(name)
        // Its module no longer imports (a change the fingerprint leaves out, or since it was planned): invalid.
        await this.#registry.failed(
          byName.get(name),
          name,
          error as SmError,
          IMPORT_FAILURES.has((error as SmError).code),
        )
      }
    }
  }

  /** The plugin loaded next under `name`, if one is within `ms`. */
  #arrival(name: string, ms: number): Promise<RunningPlugin | undefined> {
    return new Promise((resolve) => {
      const waiting = this.#arrivals.get(name) ?? new Set()
      this.#arrivals.set(name, waiting)
      const arrived = (plugin: RunningPlugin | undefined) => {
        clearTimeout(timer)
        waiting.delete(arrived)
        resolve(plugin)
      }
      const timer = setTimeout(() => arrived(undefined), ms)
      timer.unref()
      waiting.add(arrived)
    })
  }

  async unload(name: string): Promise<void> {
    const plugin = this.loaded.get(name)
    if (!plugin) return
    this.loaded.delete(name)
    await this.withdraw(name)
    await plugin.unload()
    this.#options.crashGuard?.gone(name)
    await this.#faults().flushHookFailures(name)
    this.#options.logger.info(`plugin '${name}' unloaded`)
  }

  /** Unloads every plugin, in reverse load order. */
  async unloadAll(): Promise<void> {
    for (const name of [...this.loaded.keys()].reverse()) await this.unload(name)
  }

  /** Takes back what the plugin contributed; a failure is logged (the plugin goes anyway). */
  async withdraw(name: string): Promise<void> {
    await this.#options
      .withdraw?.(name)
      .catch((error: unknown) => this.#options.logger.error(`taking back what '${name}' contributed failed`, { error }))
  }
}

/** How many times a start is tried again when another plugin's fault ended the thread it was starting in. */
const DISPLACED_TRIES = 3

/**
 * Activates the started plugin; when another plugin in its thread ended that thread meanwhile
 * (it was displaced, not at fault), starts it again in a new one, a few times.
 */
async function activated(
  starting: Promise<ThreadedPlugin>,
  startAgain: () => Promise<ThreadedPlugin>,
  loading: () => void,
): Promise<ThreadedPlugin> {
  for (let tries = 1; ; tries++) {
    try {
      const plugin = await starting
      loading()
      await plugin.activate()
      return plugin
    } catch (error) {
      if (!isDisplacement(error) || tries >= DISPLACED_TRIES) throw error
      starting = startAgain()
    }
  }
}
