import { SmError } from '../../kernel'
import type { Candidate } from './discovery'
import { discover } from './discovery'
import { clearBlockedRecord, readBlockedRecord } from './loop-watchdog'
import type { ManagerOptions } from './plugin-manager'
import { importFailure, type PluginStatics } from './plugin-module'
import { registerPluginRoot } from './process-guard'
import type { RegistryFacts } from './registry-facts'
import type { StoredRecord } from './registry-projection'
import { shippedStatics } from './shipped'
import { inspectInThread } from './thread/inspector'

/** How an import in a thread may fail by the module's own top-level code, so that trying again costs as much again. */
const HUNG_IMPORTS = new Set([
  'SM_ERR_PLUGIN_LOAD_TIMEOUT',
  'SM_ERR_PLUGIN_OUT_OF_MEMORY',
  'SM_ERR_PLUGIN_EXITED',
  'SM_ERR_PLUGIN_CRASHED',
])

/**
 * Discovery as the plugin manager keeps it: what is in the search paths recorded in the registry
 * (found, changed, gone, refused, blocked by the loop watchdog or the crash guard), and each
 * plugin's statics, read from its record when it is unchanged and imported (in an inspector
 * thread where plugins run in threads) when not.
 */
export class DiscoverySync {
  readonly #options: ManagerOptions
  readonly #registry: RegistryFacts
  /** Whether a plugin is loaded (a death while its module is imported is then a running plugin's). */
  readonly #isLoaded: (plugin: string) => boolean
  readonly #definitions = new Map<string, PluginStatics>()
  readonly #candidates = new Map<string, Candidate>()
  /** The loop watchdog's record was found at this start: the last run's end is attributed already. */
  #watchdogEnded = false

  constructor(options: ManagerOptions, registry: RegistryFacts, isLoaded: (plugin: string) => boolean) {
    this.#options = options
    this.#registry = registry
    this.#isLoaded = isLoaded
  }

  /** Whether the last discovery found the plugin in a search path. */
  found(plugin: string): boolean {
    return this.#candidates.has(plugin)
  }

  /** Forgets every plugin's statics: the next reconcile reads them again (a reload). */
  forgetStatics(): void {
    this.#definitions.clear()
  }

  /** Whether the search paths hold a plugin the registry does not know (added since the last discovery). */
  async anyAdded(): Promise<boolean> {
    const known = new Set((await this.#registry.records()).map((r) => r.name))
    const { candidates, refused } = discover(await this.#options.searchPaths())
    return [...candidates, ...refused].some(({ name }) => !known.has(name))
  }

  // The watchdog's hand-over file becomes a plugins:blocked fact, removed only once recorded: from
  // then on the block is in the log and the registry, whichever command comes first.
  async recordBlocked(): Promise<void> {
    const file = this.#options.blockedFile
    const held = file && readBlockedRecord(file)
    if (!file || !held) return
    this.#watchdogEnded = true
    const { plugin, hook, ms, at } = held
    const record = (await this.#registry.records()).find((r) => r.name === plugin)
    if (record && record.blocked?.at !== at) {
      const error = new SmError('SM_ERR_PLUGIN_BLOCKED_LOOP', { plugin, hook, seconds: Math.round(ms / 1000) })
      this.#options.logger.warn(`plugin '${plugin}' failed: ${error.message}`, { code: error.code })
      await this.#registry.fact('plugins:blocked', {
        name: plugin,
        hook,
        ms,
        at,
        error: { code: error.code, message: error.message },
      })
    }
    clearBlockedRecord(file)
  }

  // Discovery: record what is on disk. Unchanged, disabled plugins are not imported again.
  // Resolves to the plugins whose files changed since they were last seen. A module whose import
  // hung, ran out of memory or ended its thread is imported again only when its files change or
  // `again` says so (a reload, an enable of it): not by every command that discovers.
  async sync(again: (plugin: string) => boolean = () => false): Promise<Set<string>> {
    const registry = this.#registry
    const changed = new Set<string>()
    const records = new Map((await registry.records()).map((r) => [r.name, r]))
    const { candidates, refused, shadowed } = discover(await this.#options.searchPaths())
    for (const twin of shadowed)
      this.#options.logger.info(`plugin '${twin.name}' in ${twin.root} is overridden by one in an earlier search path`)
    this.#candidates.clear()
    for (const candidate of candidates) {
      this.#candidates.set(candidate.name, candidate)
      registerPluginRoot(candidate.root, candidate.name)
    }

    if (await this.#keepOutCrashed(records))
      for (const record of await registry.records()) records.set(record.name, record)
    for (const [name, record] of records) {
      const gone = !this.#candidates.has(name) && !refused.some((r) => r.name === name)
      if (gone && record.state !== 'missing') await registry.fact('plugins:missing', { name })
    }
    for (const { name, root, source, error } of refused) {
      const record = records.get(name)
      const rediscovered = await registry.discovered(record, { name, source, path: root, hash: '' })
      await registry.failed(rediscovered ? undefined : record, name, error, true)
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
      const definition = imported.get(candidate.name)
      if (definition && !(definition instanceof SmError)) {
        this.#definitions.set(candidate.name, definition)
        // It is whole now: a record still 'invalid' (a bad link since removed, an import error since
        // fixed, perhaps in node_modules, which the fingerprint leaves out) is discovered afresh.
        await registry.discovered(record, { ...candidate, path: candidate.root, ...definition }, { valid: true })
      } else {
        const rediscovered = await registry.discovered(unchanged ? record : undefined, {
          name: candidate.name,
          source: candidate.source,
          path: candidate.root,
          hash: candidate.hash,
        })
        await registry.failed(rediscovered ? undefined : record, candidate.name, failureOf(candidate, definition), true)
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
    const registry = this.#registry
    const crashed = this.#options.crashGuard?.begin(this.#watchdogEnded) ?? []
    for (const { plugin, runs, was, at } of crashed) {
      const candidate = this.#candidates.get(plugin)
      let record = records.get(plugin)
      if (!record && !candidate) continue
      if (!record && candidate) await registry.discovered(undefined, { ...candidate, path: candidate.root })
      record = (await registry.records()).find((r) => r.name === plugin)
      if (record?.blocked) continue
      const error = new SmError('SM_ERR_PLUGIN_CRASH_LOOP', { plugin, runs, was })
      this.#options.logger.error(error.message, { code: error.code })
      await registry.fact('plugins:blocked', {
        name: plugin,
        hook: was,
        ms: 0,
        at,
        error: { code: error.code, message: error.message },
      })
    }
    return crashed.length > 0
  }

  // The statics of an enabled plugin: imported once per load, on demand for one enabled later.
  async definition(record: StoredRecord): Promise<PluginStatics | undefined> {
    const known = this.#definitions.get(record.name)
    if (known) return known
    const candidate = this.#candidates.get(record.name)
    if (!candidate) return undefined
    const definition = (await this.#import([candidate])).get(record.name)
    if (!definition || definition instanceof SmError) {
      await this.#registry.failed(record, record.name, failureOf(candidate, definition), true)
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
      for (const { name } of candidates) this.#isLoaded(name) ? guard?.running(name) : guard?.gone(name)
    }
  }

  async #importEach(candidates: readonly Candidate[]): Promise<Map<string, PluginStatics | SmError>> {
    // A shipped plugin as the build saw it needs no import (shipped.ts).
    const built = new Map(
      candidates.flatMap((candidate) => {
        const statics = shippedStatics(candidate)
        return statics ? [[candidate.name, statics] as const] : []
      }),
    )
    const rest = candidates.filter(({ name }) => !built.has(name))
    const imported = await this.#importRest(rest)
    // In the order they were found (the callers record facts in it).
    return new Map(
      candidates.map(({ name }) => [name, (built.get(name) ?? imported.get(name)) as PluginStatics | SmError]),
    )
  }

  async #importRest(candidates: readonly Candidate[]): Promise<Map<string, PluginStatics | SmError>> {
    if (candidates.length === 0) return new Map()
    const threads = this.#options.threads
    if (threads && (await threads.isolation()) !== 'none') {
      // A module whose import ended its thread last time is imported alone at once (else twice:
      // among others, then alone, to be sure it was its own doing).
      const faulted = new Set(
        (await this.#registry.records())
          .filter((record) => record.state === 'invalid' && THREAD_FAULTS.has(record.error?.code ?? ''))
          .map((record) => record.name),
      )
      return inspectInThread(candidates, {
        alone: (name) => faulted.has(name),
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
}

/** The codes of an import that ended its thread. */
const THREAD_FAULTS: ReadonlySet<string> = new Set([
  'SM_ERR_PLUGIN_LOAD_TIMEOUT',
  'SM_ERR_PLUGIN_EXITED',
  'SM_ERR_PLUGIN_CRASHED',
  'SM_ERR_PLUGIN_OUT_OF_MEMORY',
])

/** Why a candidate has no statics: its import's error (every candidate imported is answered for). */
function failureOf(candidate: Candidate, answer: SmError | undefined): SmError {
  return answer ?? importFailure(candidate.name, new Error('its import gave no answer'))
}

/** An unchanged plugin's statics from its record, when the record has them all (recorded by this version or later). */
function staticsOfRecord(record: StoredRecord, candidate: Candidate): PluginStatics | undefined {
  if (record.requires === undefined || record.secretSettings === undefined || record.methods === undefined)
    return undefined
  return {
    candidate,
    version: record.version,
    author: record.author,
    description: record.description,
    requires: record.requires,
    // Read only when a plugin is first discovered, which this one is not.
    enabledByDefault: false,
    secretSettings: record.secretSettings ?? undefined,
    methods: record.methods,
  }
}
