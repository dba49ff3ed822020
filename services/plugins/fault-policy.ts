import { SmError } from '../../kernel'
import type { RunningPlugin } from './loaded-plugin'
import type { ManagerOptions } from './plugin-manager'
import type { RegistryFacts } from './registry-facts'
import { ThreadedPlugin } from './thread/threaded-plugin'

/** How often a plugin's hook failures are recorded as a fact, at most. */
const HOOK_FACT_INTERVAL_MS = 60_000
/** The longest wait before a faulted plugin's thread is started again (unless the first is longer). */
const MAX_BACKOFF_S = 60

/** What the fault policy asks of the plugin manager. */
export interface FaultHost {
  /** Runs `work` in the manager's queue (one operation at a time). */
  run(work: () => Promise<void>): Promise<void>
  /** The plugin loaded under `name` now, if any. */
  loaded(name: string): RunningPlugin | undefined
  /** Forgets a faulted plugin (its thread has ended already): no longer loaded. */
  dropFaulted(name: string): void
  /** Takes back what the plugin contributed (routes, templates, mounts). */
  withdraw(name: string): Promise<void>
  /** Reconciles to start `name` again; resolves to it once loaded. */
  startAgain(name: string): Promise<RunningPlugin | undefined>
  /** Whether unloadAll ran (nothing loads again). */
  stopped(): boolean
  /** Whether manager:started was seen (a plugin started again gets its onManagerStartup too). */
  managerStarted(): boolean
}

/**
 * What the plugin manager does with a plugin's faults: hook failures counted and recorded at most
 * once a minute, and a thread that ended by a fault started again after a backoff (1, 2, 4 … s,
 * at most a minute), its routes answering 503 meanwhile; after plugins.max_strikes faults within
 * plugins.strike_window_s it is quarantined: kept out, with the fault's code and where it
 * happened, until an admin enables it or reloads plugins. (A plugin that takes the whole process
 * down is crash-guard.ts's.)
 */
export class FaultPolicy {
  readonly #options: ManagerOptions
  readonly #registry: RegistryFacts
  readonly #host: FaultHost
  /** When each plugin's thread faulted, within the strike window. */
  readonly #strikes = new Map<string, number[]>()
  /** The timers that start faulted plugins again. */
  readonly #restarts = new Map<string, NodeJS.Timeout>()
  readonly #hookFailures = new Map<string, { count: number; last: number; event: string; error: SmError }>()

  constructor(options: ManagerOptions, registry: RegistryFacts, host: FaultHost) {
    this.#options = options
    this.#registry = registry
    this.#host = host
  }

  /** Forgets the strikes of one plugin's faults (an admin's enable is a fresh start), or of all (a reload). */
  forgive(name?: string): void {
    if (name === undefined) this.#strikes.clear()
    else this.#strikes.delete(name)
  }

  /** No faulted plugin is started again by its backoff's timer (a reload, a disable or the end decides now). */
  cancelRestarts(name?: string): void {
    for (const [plugin, timer] of this.#restarts)
      if (name === undefined || plugin === name) {
        clearTimeout(timer)
        this.#restarts.delete(plugin)
      }
  }

  // Hook failures are counted; a fact is recorded at most once a minute per plugin, and what
  // is still pending when the plugin unloads is recorded then.
  hookFailed(name: string, event: string, error: SmError): void {
    const entry = this.#hookFailures.get(name) ?? { count: 0, last: 0, event, error }
    entry.count += 1
    entry.event = event
    entry.error = error
    this.#hookFailures.set(name, entry)
    if (Date.now() - entry.last < HOOK_FACT_INTERVAL_MS) return
    this.flushHookFailures(name).catch((failure: unknown) =>
      this.#options.logger.warn('could not record a plugin hook failure', { error: failure }),
    )
  }

  async flushHookFailures(name: string): Promise<void> {
    const entry = this.#hookFailures.get(name)
    if (!entry || entry.count === 0) return
    const { count, event, error } = entry
    entry.count = 0
    entry.last = Date.now()
    await this.#registry.fact('plugins:hook_failed', {
      name,
      event,
      count,
      error: { code: error.code, message: error.message },
    })
  }

  /** A plugin's thread ended by a fault (its hooks and listeners are gone already): a strike, then a restart or quarantine. */
  faulted(plugin: RunningPlugin, fault: SmError): void {
    this.#dropped(plugin, `handling plugin '${plugin.name}''s fault`, async (name) => {
      const { max, windowMs, firstDelayS } = (await this.#options.threads?.strikes()) ?? {
        max: 3,
        windowMs: 600_000,
        firstDelayS: 1,
      }
      const now = Date.now()
      const strikes = [...(this.#strikes.get(name) ?? []).filter((at) => now - at < windowMs), now]
      this.#strikes.set(name, strikes)
      if (strikes.length >= max) return this.#quarantine(name, fault, strikes.length, windowMs, now)
      const seconds = Math.min(firstDelayS * 2 ** (strikes.length - 1), Math.max(MAX_BACKOFF_S, firstDelayS))
      if (plugin instanceof ThreadedPlugin) plugin.restarting(seconds)
      this.#options.logger.warn(`plugin '${name}' is started again in ${seconds} s`, { code: fault.code })
      await this.#registry.fact('plugins:failed', {
        name,
        invalid: false,
        error: { code: fault.code, message: fault.message },
      })
      this.#restartIn(name, seconds)
    })
  }

  /** A plugin's thread ended by another plugin's fault: it is started again at once, without a strike or a fact. */
  displaced(plugin: RunningPlugin): void {
    this.#dropped(plugin, `starting plugin '${plugin.name}' again`, (name) => this.#startAgain(name))
  }

  /** In the manager's queue: forgets the ended `plugin` (if it is still the one loaded), then does `work`. */
  #dropped(plugin: RunningPlugin, what: string, work: (name: string) => Promise<void>): void {
    const name = plugin.name
    const host = this.#host
    void host
      .run(async () => {
        if (host.stopped() || host.loaded(name) !== plugin) return
        host.dropFaulted(name)
        await work(name)
      })
      .catch((failure: unknown) => this.#options.logger.error(`${what} failed`, { error: failure }))
  }

  async #quarantine(name: string, fault: SmError, strikes: number, windowMs: number, now: number): Promise<void> {
    this.#strikes.delete(name)
    await this.#host.withdraw(name)
    const quarantined = new SmError('SM_ERR_PLUGIN_QUARANTINED', {
      plugin: name,
      strikes,
      minutes: Math.round(windowMs / 60_000),
      last: fault.code,
    })
    this.#options.logger.error(quarantined.message, { code: quarantined.code })
    const where = String((fault.params as { where?: unknown }).where ?? 'its code')
    const ms = Number((fault.params as { ms?: unknown }).ms ?? 0)
    await this.#registry.fact('plugins:blocked', {
      name,
      hook: where,
      ms,
      at: new Date(now).toISOString(),
      error: { code: fault.code, message: fault.message },
    })
    await this.flushHookFailures(name)
    await this.#registry.writeFile()
  }

  async #startAgain(name: string): Promise<void> {
    const host = this.#host
    const back = await host.startAgain(name)
    // Not back (its onLoad failed, it was disabled meanwhile): its routes go, no longer "restarting".
    if (!back) await host.withdraw(name)
    else if (host.managerStarted()) await back.call('onManagerStartup')
  }

  #restartIn(name: string, seconds: number): void {
    const host = this.#host
    clearTimeout(this.#restarts.get(name))
    const timer = setTimeout(() => {
      this.#restarts.delete(name)
      void host
        .run(async () => {
          if (host.stopped()) return
          await this.#startAgain(name)
        })
        .catch((failure: unknown) =>
          this.#options.logger.error(`starting plugin '${name}' again failed`, { error: failure }),
        )
    }, seconds * 1000)
    timer.unref()
    this.#restarts.set(name, timer)
  }
}
