import { existsSync, readFileSync } from 'node:fs'
import {
  type ActionOutcome,
  type ActionResult,
  type BusScope,
  type EventMap,
  isDiskFull,
  type Logger,
  performAction,
  reasonOf,
  SmError,
  unchangedOnFullDisk,
} from '../../kernel'
import { SerialQueue } from '../../lib/serial-queue'
import { writeFileWhole } from '../../lib/whole-file'
import type { Projections } from '../events/contract'
import type { RunTask } from '../tasks/contract'
import type { PluginError, PluginRecord, ReloadReport } from './contract'
import type { CrashGuard } from './crash-guard'
import { type Candidate, discover, type SearchPath } from './discovery'
import { planLoad } from './load-order'
import { LoadedPlugin, type LoadOptions, type RunningPlugin } from './loaded-plugin'
import { clearBlockedRecord, readBlockedRecord } from './loop-watchdog'
import { importFailure, type PluginDefinition, type PluginImporter, type PluginStatics } from './plugin-module'
import { containPlugins, registerPluginRoot } from './process-guard'
import { type PLUGIN_FACTS, readAllRecords, registryProjection, type StoredRecord } from './registry-projection'
import { inspectInThread } from './thread/inspector'
import { ThreadedPlugin } from './thread/threaded-plugin'

/** Whether a reconcile runs a plugin whose own code failed again: all (start, reload), the named (enable), none. */
type Retry = (plugin: string) => boolean
const retryAll: Retry = () => true
const retryOnly = (names: Iterable<string>): Retry => {
  const chosen = new Set(names)
  return (plugin) => chosen.has(plugin)
}

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

const HOOK_FACT_INTERVAL_MS = 60_000
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
/** How an import in a thread may fail by the module's own top-level code, so that trying again costs as much again. */
const HUNG_IMPORTS = new Set([
  'SM_ERR_PLUGIN_LOAD_TIMEOUT',
  'SM_ERR_PLUGIN_OUT_OF_MEMORY',
  'SM_ERR_PLUGIN_EXITED',
  'SM_ERR_PLUGIN_CRASHED',
])
/** The longest wait before a faulted plugin's thread is started again (unless the first is longer). */
const MAX_BACKOFF_S = 60

/**
 * Discovers, validates, loads and unloads plugins, and keeps the registry (a projection of
 * plugin facts) in step. Everything runs one operation at a time. The rule is reconciliation:
 * the plugins loaded are exactly the enabled, valid ones whose requirements load too, so
 * enable, disable, reload and a change made by another process all end the same way.
 */
export class PluginManager {
  readonly #options: ManagerOptions
  readonly #queue = new SerialQueue()
  readonly #loaded = new Map<string, RunningPlugin>()
  /** When each plugin's thread faulted, within the strike window. */
  readonly #strikes = new Map<string, number[]>()
  /** The timers that start faulted plugins again. */
  readonly #restarts = new Map<string, NodeJS.Timeout>()
  /** unloadAll ran: nothing loads again. */
  #stopped = false
  /** manager:started was seen: a plugin started again after a fault gets its onManagerStartup too. */
  #managerStarted = false
  readonly #definitions = new Map<string, PluginStatics>()
  readonly #candidates = new Map<string, Candidate>()
  readonly #hookFailures = new Map<string, { count: number; last: number; event: string; error: SmError }>()

  readonly #containment: { dispose(): void }
  /** The loop watchdog's record was found at this start: the last run's end is attributed already. */
  #watchdogEnded = false

  constructor(options: ManagerOptions) {
    this.#options = options
    // A plugin's stray error (a timer, a forgotten promise) counts against it like a hook's.
    this.#containment = containPlugins((plugin, error) => {
      if (!this.#candidates.has(plugin)) return false
      options.logger.error(error.message, { code: error.code })
      this.#hookFailed(plugin, 'stray error', error)
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
        await this.#recordBlocked()
        const changed = await this.#sync()
        return this.#reconcile(options.retryFailed === false ? retryOnly(changed) : retryAll)
      }),
    )
  }

  /** Discovers plugins and records what changed on disk (and a plugin the watchdog stopped), loading none. */
  async discoverOnly(): Promise<void> {
    await this.#queue.run(async () => {
      await this.#recordBlocked()
      await this.#sync()
      this.#writeRegistryFile(await this.records())
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
      const known = new Set((await this.records()).map((r) => r.name))
      const { candidates, refused } = discover(await this.#options.searchPaths())
      if (![...candidates, ...refused].some(({ name }) => !known.has(name))) return
      await this.#sync()
      this.#writeRegistryFile(await this.records())
    })
  }

  // The watchdog's hand-over file becomes a plugins:blocked fact, removed only once recorded: from
  // then on the block is in the log and the registry, whichever command comes first.
  async #recordBlocked(): Promise<void> {
    const file = this.#options.blockedFile
    const held = file && readBlockedRecord(file)
    if (!file || !held) return
    this.#watchdogEnded = true
    const { plugin, hook, ms, at } = held
    const record = (await this.records()).find((r) => r.name === plugin)
    if (record && record.blocked?.at !== at) {
      const error = new SmError('SM_ERR_PLUGIN_BLOCKED_LOOP', { plugin, hook, seconds: Math.round(ms / 1000) })
      this.#options.logger.warn(`plugin '${plugin}' failed: ${error.message}`, { code: error.code })
      await this.#fact('plugins:blocked', {
        name: plugin,
        hook,
        ms,
        at,
        error: { code: error.code, message: error.message },
      })
    }
    clearBlockedRecord(file)
  }

  /** Unloads every plugin, then discovers and loads again, running changed code (blocked plugins too: a reload is explicit). */
  reload(): Promise<ReloadReport> {
    return this.#queue.run(() =>
      this.#timed(async () => {
        await this.#unloadAll()
        this.#definitions.clear()
        this.#strikes.clear()
        this.#cancelRestarts()
        for (const record of await this.records())
          if (record.blocked) await this.#fact('plugins:unblocked', { name: record.name })
        await this.#sync(() => true)
        return this.#reconcile(retryAll)
      }),
    )
  }

  /**
   * Brings the loaded plugins in line with the registry (after another process changed it).
   * A plugin that failed is not tried again here: that takes a reload, an enable or a new start,
   * so one broken `onLoad` runs once per attempt, never once per change someone else makes.
   */
  async reconcile(): Promise<void> {
    await this.#queue.run(() => this.#reconcile(retryOnly([])))
  }

  /** Unloads every plugin and stops attributing stray errors to them. */
  async unloadAll(): Promise<void> {
    this.#stopped = true
    await this.#queue.run(async () => {
      this.#cancelRestarts()
      await this.#unloadAll()
    })
    this.#containment.dispose()
  }

  /** No faulted plugin is started again by its backoff's timer (a reload, a disable or the end decides now). */
  #cancelRestarts(name?: string): void {
    for (const [plugin, timer] of this.#restarts)
      if (name === undefined || plugin === name) {
        clearTimeout(timer)
        this.#restarts.delete(plugin)
      }
  }

  /** The set_plugin_status action, then load or unload at once. */
  setEnabled(name: string, enabled: boolean): Promise<ActionResult> {
    return this.#queue.run(async () => {
      const outcome = await this.#recordStatus(name, enabled)
      // An admin's enable is a fresh start: the strikes of its thread's faults are forgotten; a
      // disable ends a pending restart.
      if (outcome.status === 'success') {
        if (enabled) this.#strikes.delete(name)
        this.#cancelRestarts(name)
      }
      if (outcome.status === 'success') await this.#reconcile(retryOnly([name]))
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
        await this.#sync((plugin) => plugin === name)
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
      const state = `${record.enabled ? 'enabled' : 'disabled'} and ${this.#loaded.has(name) ? 'loaded' : 'not loaded'}`
      throw unchangedOnFullDisk(error, `the plugin '${name}' stays ${state}`)
    }
  }

  /** A known plugin (also one whose files are gone: it can still be inspected and disabled), or SM_ERR_PLUGIN_NOT_FOUND. */
  async record(name: string): Promise<StoredRecord> {
    const record = (await this.records()).find((r) => r.name === name)
    if (!record) throw new SmError('SM_ERR_PLUGIN_NOT_FOUND', { plugin: name })
    return record
  }

  records(): Promise<StoredRecord[]> {
    return this.#options.projections.read(registryProjection.name, readAllRecords)
  }

  /** Runs `onManagerStartup` on every loaded plugin, in load order. */
  managerStarted(): Promise<void> {
    this.#managerStarted = true
    return this.#queue.run(async () => {
      for (const plugin of this.#loaded.values()) await plugin.call('onManagerStartup')
    })
  }

  loaded(name: string): RunningPlugin | undefined {
    return this.#loaded.get(name)
  }

  // Discovery: record what is on disk. Unchanged, disabled plugins are not imported again.
  // Resolves to the plugins whose files changed since they were last seen. A module whose import
  // hung, ran out of memory or ended its thread is imported again only when its files change or
  // `again` says so (a reload, an enable of it): not by every command that discovers.
  async #sync(again: (plugin: string) => boolean = () => false): Promise<Set<string>> {
    const changed = new Set<string>()
    const records = new Map((await this.records()).map((r) => [r.name, r]))
    const { candidates, refused, shadowed } = discover(await this.#options.searchPaths())
    for (const twin of shadowed)
      this.#options.logger.info(`plugin '${twin.name}' in ${twin.root} is overridden by one in an earlier search path`)
    this.#candidates.clear()
    for (const candidate of candidates) {
      this.#candidates.set(candidate.name, candidate)
      registerPluginRoot(candidate.root, candidate.name)
    }

    if (await this.#keepOutCrashed(records)) for (const record of await this.records()) records.set(record.name, record)
    for (const [name, record] of records) {
      const gone = !this.#candidates.has(name) && !refused.some((r) => r.name === name)
      if (gone && record.state !== 'missing') await this.#fact('plugins:missing', { name })
    }
    for (const { name, root, source, error } of refused) {
      const record = records.get(name)
      const rediscovered = await this.#discovered(record, { name, source, path: root, hash: '' })
      await this.#failed(rediscovered ? undefined : record, name, error, true)
    }
    const toImport: Candidate[] = []
    for (const candidate of candidates) {
      const record = records.get(candidate.name)
      const unchanged = record && record.hash === candidate.hash && record.state !== 'missing'
      if (!unchanged) changed.add(candidate.name)
      // A blocked plugin's code is not run, not even its module, until it is enabled or reloaded.
      // An invalid one is looked at again: what made it so may be gone without changing its hash.
      if (unchanged && !record.enabled && record.state !== 'invalid') continue
      if (record?.blocked) continue
      if (unchanged && record.state === 'invalid' && HUNG_IMPORTS.has(record.error?.code ?? '') && !again(record.name))
        continue
      // Unchanged and whole when last imported: planned from its record, imported only where it
      // runs. A reload reads every class again (what the fingerprint leaves out may have changed).
      const known =
        unchanged && record.state !== 'invalid' && !again(candidate.name) && staticsOfRecord(record, candidate)
      if (known) {
        this.#definitions.set(candidate.name, known)
        continue
      }
      toImport.push(candidate)
    }
    const imported = await this.#import(toImport)
    for (const candidate of toImport) {
      const record = records.get(candidate.name)
      const unchanged = !changed.has(candidate.name)
      const definition = imported.get(candidate.name) as PluginStatics | SmError
      if (!(definition instanceof SmError)) {
        this.#definitions.set(candidate.name, definition)
        // It is whole now: a record still 'invalid' (a bad link since removed, an import error since
        // fixed, perhaps in node_modules, which the fingerprint leaves out) is discovered afresh.
        await this.#discovered(record, { ...candidate, path: candidate.root, ...definition }, { valid: true })
      } else {
        const rediscovered = await this.#discovered(unchanged ? record : undefined, {
          name: candidate.name,
          source: candidate.source,
          path: candidate.root,
          hash: candidate.hash,
        })
        await this.#failed(rediscovered ? undefined : record, candidate.name, definition, true)
      }
    }
    return changed
  }

  /**
   * At the first discovery of this process: a plugin the last runs died with (crash-guard.ts) is
   * blocked, as the loop watchdog's are, with SM_ERR_PLUGIN_CRASH_LOOP; one never recorded (its
   * import ended the process) is recorded first. Resolves to whether any was.
   */
  async #keepOutCrashed(records: ReadonlyMap<string, StoredRecord>): Promise<boolean> {
    const crashed = this.#options.crashGuard?.begin(this.#watchdogEnded) ?? []
    for (const { plugin, runs, was, at } of crashed) {
      const candidate = this.#candidates.get(plugin)
      let record = records.get(plugin)
      if (!record && !candidate) continue
      if (!record && candidate) await this.#discovered(undefined, { ...candidate, path: candidate.root })
      record = (await this.records()).find((r) => r.name === plugin)
      if (record?.blocked) continue
      const error = new SmError('SM_ERR_PLUGIN_CRASH_LOOP', { plugin, runs, was })
      this.#options.logger.error(error.message, { code: error.code })
      await this.#fact('plugins:blocked', {
        name: plugin,
        hook: was,
        ms: 0,
        at,
        error: { code: error.code, message: error.message },
      })
    }
    return crashed.length > 0
  }

  /** Loads and unloads until the loaded plugins match the registry; resolves to the registry after. */
  async #reconcile(retry: Retry): Promise<StoredRecord[]> {
    const records = await this.records()
    const byName = new Map(records.map((r) => [r.name, r]))
    const wanted: PluginStatics[] = []
    for (const record of records) {
      if (!record.enabled || record.blocked || record.state === 'missing' || record.state === 'invalid') continue
      // Its own code failed (constructor, onLoad): run it again only when asked to.
      const ownFailure = record.state === 'failed' && OWN_FAILURES.has(record.error?.code ?? '')
      if (ownFailure && !this.#loaded.has(record.name) && !retry(record.name)) continue
      const definition = await this.#definition(record)
      if (definition) wanted.push(definition)
    }
    const plan = planLoad(wanted)
    const keep = new Set(plan.order.map((d) => d.candidate.name))
    for (const name of [...this.#loaded.keys()].reverse()) {
      if (!keep.has(name)) await this.#unload(name)
    }
    for (const [name, error] of plan.refused) await this.#failed(byName.get(name), name, error, false)
    const timeoutMs = await this.#options.hookTimeoutMs()
    const threads = this.#options.threads
    const threaded = threads !== undefined && (await threads.isolation()) !== 'none'
    const options = {
      scope: this.#options.scope,
      logger: this.#options.rootLogger,
      timeoutMs,
      onHookFailure: (plugin: string, event: string, error: SmError) => this.#hookFailed(plugin, event, error),
      runTask: this.#options.runTask,
    }
    // Each plugin's thread starts at once (import, constructor), side by side with the others';
    // they are then activated (hooks bound, onLoad run) one by one in load order.
    const started = new Map<string, Promise<ThreadedPlugin>>()
    const importMs = threads && threaded ? await threads.importMs() : 0
    const guard = this.#options.crashGuard
    const startThread =
      threads && threaded
        ? (definition: PluginStatics): Promise<ThreadedPlugin> => {
            const name = definition.candidate.name
            guard?.loading(name)
            const starting = (async () =>
              ThreadedPlugin.start(definition, {
                ...options,
                entry: threads.entry,
                cacheDir: threads.cacheDir,
                logLevel: threads.logLevel,
                maxMemoryMb: await threads.memoryMb(name),
                maxExternalMb: await threads.externalMb(),
                importMs,
                onFault: (faulted, error) => this.#faulted(faulted, error),
              }))()
            starting.then(
              () => guard?.running(name),
              () => guard?.gone(name),
            )
            return starting
          }
        : undefined
    if (startThread)
      for (const definition of plan.order) {
        const name = definition.candidate.name
        // One the last run died with starts alone, when its turn comes (#loadInOrder).
        if (this.#loaded.has(name) || guard?.suspect(name)) continue
        const starting = startThread(definition)
        starting.catch(() => {}) // awaited below, in load order
        started.set(name, starting)
      }
    try {
      await this.#loadInOrder(plan.order, byName, options, started, startThread)
    } finally {
      // Started but not loaded (the loop above threw midway): no thread is left running unowned.
      for (const [name, starting] of started)
        if (!this.#loaded.has(name))
          void starting.then(
            (plugin) => {
              if (this.#loaded.get(name) === plugin) return
              guard?.gone(name)
              return plugin.discard()
            },
            () => {},
          )
    }
    const after = await this.records()
    this.#writeRegistryFile(after)
    this.#options.settled?.()
    return after
  }

  async #loadInOrder(
    order: readonly PluginStatics[],
    byName: ReadonlyMap<string, StoredRecord>,
    options: Omit<LoadOptions, 'onEnter'>,
    started: ReadonlyMap<string, Promise<ThreadedPlugin>>,
    startThread: ((definition: PluginStatics) => Promise<ThreadedPlugin>) | undefined,
  ): Promise<void> {
    const guard = this.#options.crashGuard
    for (const definition of order) {
      const name = definition.candidate.name
      if (this.#loaded.has(name)) continue
      const blocked = definition.requires.find((required) => !this.#loaded.has(required))
      if (blocked) {
        await started
          .get(name)
          ?.then((plugin) => plugin.discard())
          .catch(() => {})
        guard?.gone(name)
        const error = new SmError('SM_ERR_PLUGIN_REQUIRES_MISSING', { plugin: name, missing: `'${blocked}'` })
        await this.#failed(byName.get(name), name, error, false)
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
        if (starting) {
          const threadedPlugin = await starting
          guard?.loading(name)
          await threadedPlugin.activate()
          plugin = threadedPlugin
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
        this.#loaded.set(name, plugin)
        guard?.running(name)
        if (byName.get(name)?.state !== 'loaded')
          await this.#fact('plugins:loaded', { name, version: definition.version })
        this.#options.logger.info(`plugin '${name}' ${definition.version} loaded`, { hooks: plugin.hooks.length })
      } catch (error) {
        guard?.gone(name)
        // Its module no longer imports (a change the fingerprint leaves out, or since it was planned): invalid.
        await this.#failed(byName.get(name), name, error as SmError, IMPORT_FAILURES.has((error as SmError).code))
      }
    }
  }

  // The statics of an enabled plugin: imported once per load, on demand for one enabled later.
  async #definition(record: StoredRecord): Promise<PluginStatics | undefined> {
    const known = this.#definitions.get(record.name)
    if (known) return known
    const candidate = this.#candidates.get(record.name)
    if (!candidate) return undefined
    const definition = (await this.#import([candidate])).get(record.name) as PluginStatics | SmError
    if (definition instanceof SmError) {
      await this.#failed(record, record.name, definition, true)
      return undefined
    }
    this.#definitions.set(record.name, definition)
    return definition
  }

  /**
   * Imports plugin modules to read what they say of themselves: in an inspector thread where
   * plugins run in threads of their own (a module's top-level loop, leak or exit then costs only
   * its own import), in this thread where they run here.
   */
  async #import(candidates: readonly Candidate[]): Promise<Map<string, PluginStatics | SmError>> {
    if (candidates.length === 0) return new Map()
    // Their top-level code runs: a death now is theirs as much as a load's.
    const guard = this.#options.crashGuard
    for (const { name } of candidates) guard?.loading(name)
    try {
      return await this.#importEach(candidates)
    } finally {
      for (const { name } of candidates) this.#loaded.has(name) ? guard?.running(name) : guard?.gone(name)
    }
  }

  async #importEach(candidates: readonly Candidate[]): Promise<Map<string, PluginStatics | SmError>> {
    const threads = this.#options.threads
    if (threads && (await threads.isolation()) !== 'none') {
      return inspectInThread(candidates, {
        entry: threads.entry,
        cacheDir: threads.cacheDir,
        maxMemoryMb: threads.memoryMb,
        importMs: await threads.importMs(),
      })
    }
    const results = new Map<string, PluginStatics | SmError>()
    for (const candidate of candidates)
      results.set(
        candidate.name,
        await this.#options.importer.import(candidate).catch((error: unknown) => importFailure(candidate.name, error)),
      )
    return results
  }

  async #unload(name: string): Promise<void> {
    const plugin = this.#loaded.get(name)
    if (!plugin) return
    this.#loaded.delete(name)
    await this.#withdraw(name)
    await plugin.unload()
    this.#options.crashGuard?.gone(name)
    await this.#flushHookFailures(name)
    this.#options.logger.info(`plugin '${name}' unloaded`)
  }

  /**
   * A plugin's thread ended by a fault (its hooks and listeners are gone already): it is started
   * again after a backoff (1, 2, 4 … s, at most a minute), its routes answering 503 meanwhile;
   * after plugins.max_strikes faults within plugins.strike_window_s it is quarantined: kept out,
   * with the fault's code and where it happened, until an admin enables it or reloads plugins.
   */
  #faulted(plugin: RunningPlugin, fault: SmError): void {
    const name = plugin.name
    const where = String((fault.params as { where?: unknown }).where ?? 'its code')
    void this.#queue
      .run(async () => {
        if (this.#stopped || this.#loaded.get(name) !== plugin) return
        this.#loaded.delete(name)
        this.#options.crashGuard?.gone(name)
        const { max, windowMs, firstDelayS } = (await this.#options.threads?.strikes()) ?? {
          max: 3,
          windowMs: 600_000,
          firstDelayS: 1,
        }
        const now = Date.now()
        const strikes = [...(this.#strikes.get(name) ?? []).filter((at) => now - at < windowMs), now]
        this.#strikes.set(name, strikes)
        const error = { code: fault.code, message: fault.message }
        if (strikes.length >= max) {
          this.#strikes.delete(name)
          await this.#withdraw(name)
          const quarantined = new SmError('SM_ERR_PLUGIN_QUARANTINED', {
            plugin: name,
            strikes: strikes.length,
            minutes: Math.round(windowMs / 60_000),
            last: fault.code,
          })
          this.#options.logger.error(quarantined.message, { code: quarantined.code })
          const ms = Number((fault.params as { ms?: unknown }).ms ?? 0)
          await this.#fact('plugins:blocked', { name, hook: where, ms, at: new Date(now).toISOString(), error })
          await this.#flushHookFailures(name)
          this.#writeRegistryFile(await this.records())
          return
        }
        const seconds = Math.min(firstDelayS * 2 ** (strikes.length - 1), Math.max(MAX_BACKOFF_S, firstDelayS))
        if (plugin instanceof ThreadedPlugin) plugin.restarting(seconds)
        this.#options.logger.warn(`plugin '${name}' is started again in ${seconds} s`, { code: fault.code })
        await this.#fact('plugins:failed', { name, invalid: false, error })
        clearTimeout(this.#restarts.get(name))
        const timer = setTimeout(() => {
          this.#restarts.delete(name)
          void this.#queue
            .run(async () => {
              if (this.#stopped) return
              await this.#reconcile(retryOnly([name]))
              const back = this.#loaded.get(name)
              // Not back (its onLoad failed, it was disabled meanwhile): its routes go, no longer "restarting".
              if (!back) await this.#withdraw(name)
              else if (this.#managerStarted) await back.call('onManagerStartup')
            })
            .catch((failure: unknown) =>
              this.#options.logger.error(`starting plugin '${name}' again failed`, { error: failure }),
            )
        }, seconds * 1000)
        timer.unref()
        this.#restarts.set(name, timer)
      })
      .catch((failure: unknown) =>
        this.#options.logger.error(`handling plugin '${name}''s fault failed`, { error: failure }),
      )
  }

  async #withdraw(name: string): Promise<void> {
    await this.#options
      .withdraw?.(name)
      .catch((error: unknown) => this.#options.logger.error(`taking back what '${name}' contributed failed`, { error }))
  }

  async #unloadAll(): Promise<void> {
    for (const name of [...this.#loaded.keys()].reverse()) await this.#unload(name)
  }

  async #timed(work: () => Promise<StoredRecord[]>): Promise<ReloadReport> {
    const began = performance.now()
    const records = await work()
    return {
      loaded: [...this.#loaded.keys()],
      failed: records.filter((r) => r.enabled && (r.state === 'failed' || r.state === 'invalid')).map((r) => r.name),
      ms: performance.now() - began,
    }
  }

  async #discovered(
    record: StoredRecord | undefined,
    found: {
      name: string
      source: PluginRecord['source']
      path: string
      hash: string
      version?: string
      author?: string
      description?: string
      enabledByDefault?: boolean
      requires?: readonly string[]
      secretSettings?: readonly string[] | false
    },
    { valid = false }: { valid?: boolean } = {},
  ): Promise<boolean> {
    const fact = {
      name: found.name,
      version: found.version ?? record?.version ?? '',
      author: found.author ?? record?.author ?? 'unknown',
      description: found.description ?? record?.description ?? '',
      source: found.source,
      path: found.path,
      hash: found.hash,
      enabledByDefault: found.enabledByDefault ?? false,
      ...(found.requires ? { requires: [...found.requires] } : {}),
      ...(found.requires && found.secretSettings !== undefined
        ? { secretSettings: found.secretSettings === false ? (false as const) : [...found.secretSettings] }
        : {}),
    }
    const same =
      record &&
      record.state !== 'missing' &&
      !(valid && record.state === 'invalid') &&
      (['version', 'author', 'description', 'source', 'path', 'hash'] as const).every(
        (key) => record[key] === fact[key],
      ) &&
      // Statics not recorded yet (an older log): recorded now, so the next start need not import it.
      (found.requires === undefined || record.requires !== undefined)
    if (same) return false
    await this.#fact('plugins:discovered', fact)
    return true
  }

  async #failed(record: PluginRecord | undefined, name: string, error: SmError, invalid: boolean): Promise<void> {
    const code = error instanceof SmError ? error.code : 'SM_ERR_INTERNAL'
    const failure: PluginError = { code, message: error.message }
    const state = invalid ? 'invalid' : 'failed'
    if (record?.state === state && record.error?.code === code && record.error.message === failure.message) return
    this.#options.logger.warn(`plugin '${name}' ${state}: ${failure.message}`, { code })
    await this.#fact('plugins:failed', { name, invalid, error: failure })
  }

  // Hook failures are counted; a fact is recorded at most once a minute per plugin, and what
  // is still pending when the plugin unloads is recorded then.
  #hookFailed(name: string, event: string, error: SmError): void {
    const entry = this.#hookFailures.get(name) ?? { count: 0, last: 0, event, error }
    entry.count += 1
    entry.event = event
    entry.error = error
    this.#hookFailures.set(name, entry)
    if (Date.now() - entry.last < HOOK_FACT_INTERVAL_MS) return
    this.#flushHookFailures(name).catch((failure: unknown) =>
      this.#options.logger.warn('could not record a plugin hook failure', { error: failure }),
    )
  }

  async #flushHookFailures(name: string): Promise<void> {
    const entry = this.#hookFailures.get(name)
    if (!entry || entry.count === 0) return
    const { count, event, error } = entry
    entry.count = 0
    entry.last = Date.now()
    await this.#fact('plugins:hook_failed', { name, event, count, error: { code: error.code, message: error.message } })
  }

  async #fact<K extends (typeof PLUGIN_FACTS)[number]>(type: K, payload: EventMap[K]): Promise<void> {
    await this.#options.scope.emit(type as 'plugins:loaded', payload as EventMap['plugins:loaded'])
  }

  #writeRegistryFile(records: readonly StoredRecord[]): void {
    const registry = Object.fromEntries(
      records
        .filter((r) => r.state !== 'missing')
        .map(({ name, hash: _hash, hookFailures: _failures, lastHookError: _last, ...rest }) => [name, rest]),
    )
    const file = this.#options.registryFile
    const text = `${JSON.stringify(registry, null, 2)}\n`
    try {
      // Every boot reconciles; most change nothing, and then the file is left alone.
      if (existsSync(file) && readFileSync(file, 'utf8') === text) return
      writeFileWhole(file, text)
    } catch (error) {
      // A mirror for people to read: the registry itself is in the database, so carry on.
      const failure = new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path: file, reason: reasonOf(error) }, { cause: error })
      this.#options.logger.warn(failure.message, { code: failure.code })
    }
  }
}

/** An unchanged plugin's statics from its record, when the record has them all (recorded by this version or later). */
function staticsOfRecord(record: StoredRecord, candidate: Candidate): PluginStatics | undefined {
  if (record.requires === undefined || record.secretSettings === undefined) return undefined
  return {
    candidate,
    version: record.version,
    author: record.author,
    description: record.description,
    requires: record.requires,
    // Read only when a plugin is first discovered, which this one is not.
    enabledByDefault: false,
    secretSettings: record.secretSettings ?? undefined,
  }
}
