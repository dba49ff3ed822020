import {
  type ActionOutcome,
  type ActionResult,
  type BusScope,
  isDiskFull,
  type Logger,
  performAction,
  SmError,
  unchangedOnFullDisk,
} from '../../kernel'
import { SerialQueue } from '../../lib/serial-queue'
import type { Projections } from '../events/contract'
import type { RunTask } from '../tasks/contract'
import type { ReloadReport } from './contract'
import type { CrashGuard } from './crash-guard'
import type { SearchPath } from './discovery'
import { DiscoverySync } from './discovery-sync'
import { FaultPolicy } from './fault-policy'
import type { RunningPlugin } from './loaded-plugin'
import type { PluginImporter } from './plugin-module'
import { containPlugins } from './process-guard'
import { Reconciler, retryAll, retryOnly } from './reconcile'
import { RegistryFacts } from './registry-facts'
import type { StoredRecord } from './registry-projection'

export interface ManagerOptions {
  /** The plugins service's own scope: facts and requests go through it, and each plugin's scope is its child. */
  readonly scope: BusScope
  /** The event log's projections (the plugin registry is one). */
  readonly projections: Projections
  /** Runs a plugin's `this.api.runTask` work as a task. */
  readonly runTask: RunTask
  readonly logger: Logger
  /** The root logger, parent of each plugin's `plugin:<name>` logger. */
  readonly rootLogger: Logger
  readonly importer: PluginImporter
  readonly searchPaths: () => Promise<SearchPath[]>
  readonly hookTimeoutMs: () => Promise<number>
  /** plugins.json, rewritten after every change of the registry. */
  readonly registryFile: string
  /** Where the loop watchdog of an ended process left the plugin it blocked on (plugins.blocked.json). */
  readonly blockedFile?: string
  /**
   * The record of the plugins running in this process, which keeps out at start a plugin the
   * process died with in runs in a row (the manager's own process only: crash-guard.ts).
   */
  readonly crashGuard?: CrashGuard
  /** Told before any plugin code runs (the loop watchdog). */
  readonly onEnter?: (plugin: string, hook: string) => void
  /**
   * Where plugins run: each in a worker thread of its own (the default), or, without `threads`,
   * in this thread (plugins.isolation 'none').
   */
  readonly threads?: {
    /** The thread's entry file (the composition root plugin-thread.js). */
    readonly entry: string
    readonly cacheDir: string | false
    readonly logLevel: string
    /** plugins.isolation: 'thread' or 'none', read at each load. */
    readonly isolation: () => Promise<string>
    /** How long a plugin's module may take to import, in ms (plugins.import_timeout_s). */
    readonly importMs: () => Promise<number>
    /** A plugin's heap limit in MB (plugins.max_memory_mb, or its own in plugins.max_memory_mb_by_plugin). */
    readonly memoryMb: (plugin: string) => Promise<number>
    /** What a plugin's thread may hold outside its heap in MB (plugins.max_external_mb). */
    readonly externalMb: () => Promise<number>
    /**
     * How many faults within how long quarantine a plugin (plugins.max_strikes,
     * plugins.strike_window_s), and the first wait before a restart (plugins.restart_delay_s).
     */
    readonly strikes: () => Promise<{ readonly max: number; readonly windowMs: number; readonly firstDelayS: number }>
  }
  /** Hands a plugin's contributions (routers, templates, mounts) to whoever serves them; a throw fails the load. */
  readonly contribute?: (plugin: RunningPlugin) => Promise<void>
  /** Takes them back, before the plugin unloads. */
  readonly withdraw?: (plugin: string) => Promise<void>
  /** Told when a reconcile ended: the loaded plugins are what they will stay until the next change. */
  readonly settled?: () => void
}

/**
 * Discovers, validates, loads and unloads plugins, and keeps the registry (a projection of
 * plugin facts) in step. Everything runs one operation at a time. The rule is reconciliation:
 * the plugins loaded are exactly the enabled, valid ones whose requirements load too, so
 * enable, disable, reload and a change made by another process all end the same way.
 *
 * Its parts, each with one job: what is on disk recorded (discovery-sync.ts), the loaded plugins
 * brought in line with the registry (reconcile.ts), what a plugin's faults cost it
 * (fault-policy.ts), the registry's facts and its file (registry-facts.ts, registry-file.ts).
 */
export class PluginManager {
  readonly #options: ManagerOptions
  readonly #queue = new SerialQueue()
  readonly #registry: RegistryFacts
  readonly #discovery: DiscoverySync
  readonly #reconciler: Reconciler
  readonly #faults: FaultPolicy
  /** unloadAll ran: nothing loads again. */
  #stopped = false
  /** manager:started was seen: a plugin started again after a fault gets its onManagerStartup too. */
  #managerStarted = false
  readonly #containment: { dispose(): void }

  constructor(options: ManagerOptions) {
    this.#options = options
    this.#registry = new RegistryFacts(options.scope, options.projections, options.logger, options.registryFile)
    const loaded = (name: string) => this.#reconciler.loaded.get(name)
    this.#discovery = new DiscoverySync(options, this.#registry, (name) => loaded(name) !== undefined)
    this.#reconciler = new Reconciler(options, this.#registry, this.#discovery, () => this.#faults)
    this.#faults = new FaultPolicy(options, this.#registry, {
      run: (work) => this.#queue.run(work),
      loaded,
      dropFaulted: (name) => {
        this.#reconciler.loaded.delete(name)
        options.crashGuard?.gone(name)
      },
      withdraw: (name) => this.#reconciler.withdraw(name),
      startAgain: async (name) => {
        await this.#reconciler.reconcile(retryOnly([name]))
        return loaded(name)
      },
      stopped: () => this.#stopped,
      managerStarted: () => this.#managerStarted,
    })
    // A plugin's stray error (a timer, a forgotten promise) counts against it like a hook's.
    this.#containment = containPlugins((plugin, error) => {
      if (!this.#discovery.found(plugin)) return false
      options.logger.error(error.message, { code: error.code })
      this.#faults.hookFailed(plugin, 'stray error', error)
      return true
    })
  }

  /**
   * Discovers plugins and loads the enabled ones. A plugin whose own code failed before is tried
   * again when `retryFailed` (a manager starting) or when its files changed since; a blocked one
   * (the loop watchdog ended a process for it) is not, until it is enabled or reloaded.
   */
  loadAll(options: { retryFailed?: boolean } = {}): Promise<ReloadReport> {
    return this.#queue.run(() =>
      this.#timed(async () => {
        await this.#discovery.recordBlocked()
        const changed = await this.#discovery.sync()
        return this.#reconciler.reconcile(options.retryFailed === false ? retryOnly(changed) : retryAll)
      }),
    )
  }

  /**
   * Discovers plugins and records what changed on disk (and a plugin the watchdog stopped), loading
   * none; resolves to the registry after.
   */
  discoverOnly(): Promise<readonly StoredRecord[]> {
    return this.#queue.run(async () => {
      await this.#discovery.recordBlocked()
      await this.#discovery.sync()
      const records = await this.#registry.records()
      await this.#registry.writeFile(records)
      return records
    })
  }

  /**
   * Records the plugins added to the folder since the last discovery (a file dropped in while
   * the manager runs), so that listing and inspecting show them; loads nothing. The folder is
   * read again only for names it does not know: a changed known plugin waits for a reload.
   */
  async discoverAdded(): Promise<void> {
    // Loading, reloading or enabling is under way: it reads the folder itself, and a plugin's own
    // hook asking for the list from inside it (getPluginStatuses in onLoad) must not wait for it.
    if (!this.#queue.idle) return
    return this.#queue.run(async () => {
      if (!(await this.#discovery.anyAdded())) return
      await this.#discovery.sync()
      await this.#registry.writeFile()
    })
  }

  /** Unloads every plugin, then discovers and loads again, running changed code (blocked plugins too: a reload is explicit). */
  reload(): Promise<ReloadReport> {
    return this.#queue.run(() =>
      this.#timed(async () => {
        await this.#reconciler.unloadAll()
        this.#discovery.forgetStatics()
        this.#faults.forgive()
        this.#faults.cancelRestarts()
        for (const record of await this.records())
          if (record.blocked) await this.#registry.fact('plugins:unblocked', { name: record.name })
        await this.#discovery.sync(() => true)
        return this.#reconciler.reconcile(retryAll)
      }),
    )
  }

  /**
   * Brings the loaded plugins in line with the registry (after another process changed it).
   * A plugin that failed is not tried again here: that takes a reload, an enable or a new start,
   * so one broken `onLoad` runs once per attempt, never once per change someone else makes.
   */
  async reconcile(): Promise<void> {
    await this.#queue.run(() => this.#reconciler.reconcile(retryOnly([])))
  }

  /** Unloads every plugin and stops attributing stray errors to them. */
  async unloadAll(): Promise<void> {
    this.#stopped = true
    await this.#queue.run(async () => {
      this.#faults.cancelRestarts()
      await this.#reconciler.unloadAll()
    })
    this.#containment.dispose()
  }

  /** The set_plugin_status action, then load or unload at once. */
  setEnabled(name: string, enabled: boolean): Promise<ActionResult> {
    return this.#queue.run(async () => {
      const outcome = await this.#recordStatus(name, enabled)
      // An admin's enable is a fresh start: the strikes of its thread's faults are forgotten; a
      // disable ends a pending restart.
      if (outcome.status === 'success') {
        if (enabled) this.#faults.forgive(name)
        this.#faults.cancelRestarts(name)
      }
      if (outcome.status === 'success') await this.#reconciler.reconcile(retryOnly([name]))
      return outcome.result
    })
  }

  /**
   * The set_plugin_status action: its fact is the change. One that could not be recorded (a full
   * disk) is not made: the plugin stays as it was, loaded or not, and the error says so.
   */
  async #recordStatus(name: string, enabled: boolean): Promise<ActionOutcome<undefined>> {
    try {
      // A plugin added since the last discovery (a file dropped in while the manager runs), or one
      // whose files were refused or gone then: enabling looks at its folder again.
      const before = (await this.records()).find((r) => r.name === name)
      if (!before || (enabled && (before.state === 'invalid' || before.state === 'missing')))
        await this.#discovery.sync((plugin) => plugin === name)
      const known = await this.record(name)
      if (enabled && known.state === 'missing')
        throw new SmError('SM_ERR_PLUGIN_MISSING', { plugin: name, path: known.path })
      return await performAction(this.#options.scope, {
        before: 'before_set_plugin_status',
        after: 'after_set_plugin_status',
        payload: { pluginName: name, enabled },
        // Reconciling applies the recorded fact.
        perform: async () => undefined,
        message: () => `Plugin '${name}' ${enabled ? 'enabled' : 'disabled'}.`,
        factIsTheWork: true,
      })
    } catch (error) {
      const record = isDiskFull(error) && (await this.records().catch(() => [])).find((r) => r.name === name)
      if (!record) throw error
      // As the registry has it: a one-shot command loads plugins only when its action needs them.
      const loaded = this.#reconciler.loaded.has(name) || record.state === 'loaded' ? 'loaded' : 'not loaded'
      const state = `${record.enabled ? 'enabled' : 'disabled'} and ${loaded}`
      throw unchangedOnFullDisk(error, `the plugin '${name}' stays ${state}`)
    }
  }

  /** A known plugin (also one whose files are gone: it can still be inspected and disabled), or SM_ERR_PLUGIN_NOT_FOUND. */
  record(name: string): Promise<StoredRecord> {
    return this.#registry.record(name)
  }

  records(): Promise<readonly StoredRecord[]> {
    return this.#registry.records()
  }

  /** Runs `onManagerStartup` on every loaded plugin, in load order. */
  managerStarted(): Promise<void> {
    this.#managerStarted = true
    return this.#queue.run(async () => {
      for (const plugin of this.#reconciler.loaded.values()) await plugin.call('onManagerStartup')
    })
  }

  /** Whether an operation (a load, a reload, an enable) runs or waits: what it emits must not wait for the queue. */
  get busy(): boolean {
    return !this.#queue.idle
  }

  loaded(name: string): RunningPlugin | undefined {
    return this.#reconciler.loaded.get(name)
  }

  async #timed(work: () => Promise<readonly StoredRecord[]>): Promise<ReloadReport> {
    const began = performance.now()
    const records = await work()
    return {
      loaded: [...this.#reconciler.loaded.keys()],
      failed: records.filter((r) => r.enabled && (r.state === 'failed' || r.state === 'invalid')).map((r) => r.name),
      ms: performance.now() - began,
    }
  }
}
