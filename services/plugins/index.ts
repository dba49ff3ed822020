import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { declaredService, LoggerToken, reasonOf, type Service, SmError } from '../../kernel'
import { logFile } from '../../lib/data-dir'
import { PROJECTIONS } from '../events/contract'
import { TASKS } from '../tasks/contract'
import { WEB_CONTRIBUTIONS } from '../web/contract'
import { builtinCli, checkCliConflicts, cliCacheFile, writeCliCache } from './cli-contributions'
import { type CliContribution, loopLimitMs } from './contract'
import { CrashGuard } from './crash-guard'
import { sendCustomEvent } from './custom-events'
import { pluginsDeclaration } from './declarations'
import type { SearchPath } from './discovery'
import { eventIdentifier } from './identity'
import { LoopWatcher } from './loop-watchdog'
import { eventsNeedingPlugins, loadOnFirstNeed, type PluginsOnDemand } from './on-demand'
import { PluginManager } from './plugin-manager'
import { PluginImporter } from './plugin-module'
import { PLUGIN_FACTS, registryProjection } from './registry-projection'
import { shippedPaths } from './shipped'
import { ThreadedPlugin } from './thread/threaded-plugin'

export type * from './contract'

/** The longest the plugins service's start (loading every enabled plugin) may take. */
const START_TIMEOUT_MS = 30 * 60_000

/**
 * The plugin system: discovers plugins in `<data dir>/plugins` (user), `plugins/default`
 * (shipped) and, with `plugins.dev_examples`, `plugins/examples`; loads the enabled ones with
 * their hooks bound to the bus; answers the `plugins:*` commands.
 */
export interface PluginsServiceOptions {
  /** What `import … from 'server-manager'` gives a plugin: the plugin SDK, handed in by the composition root. */
  readonly sdk: object
  /** Loads what `import … from 'server-manager/web'` gives a plugin: Router, guards, defineRoute, z. */
  readonly webSdk?: () => object
  /** Loads what `import … from 'server-manager/cli'` gives a plugin: Command, Flags, Args. */
  readonly cliSdk?: () => object
  /** Where `plugins/default` and `plugins/examples` are (default: this package). */
  readonly packageRoot?: string
  /**
   * False: discover plugins and keep the registry current, but load none. `on-demand` (a one-shot
   * command's manager): load them only when an event one of them would hear is first emitted
   * (on-demand.ts). Default true: load the enabled ones at start.
   */
  readonly load?: boolean | 'on-demand'
  /**
   * Whether a plugin whose own code failed (onLoad threw or hung) is tried again at start even
   * if its files did not change (default true: a manager starting; one-shot commands say false).
   */
  readonly retryFailed?: boolean
  /**
   * Ends the process when plugin code blocks its event loop for good (an endless synchronous
   * loop), naming the plugin, and keeps that plugin out of the next start. For processes the
   * manager owns (the CLI); an embedding program decides for itself (default false).
   */
  readonly watchdog?: boolean
  /**
   * Keeps out at start a plugin the process died with (killed, crashed) in runs in a row, from
   * `<data dir>/plugins.running.json` (crash-guard.ts). For the manager's own process (the CLI's
   * `start`): one-shot commands leave no such record (default false).
   */
  readonly crashGuard?: boolean
  /** Whether the shipped default plugins (`plugins/default`) are discovered (default true). */
  readonly defaults?: boolean
  /**
   * The entry file of a plugin's worker thread (the composition root plugin-thread.js); without
   * it every plugin runs in this thread, whatever plugins.isolation says.
   */
  readonly threadEntry?: string
  /** The level the manager logs at (a plugin's thread posts nothing below it). */
  readonly logLevel?: string
}

export function pluginsService(options: PluginsServiceOptions): Service {
  let manager: PluginManager | undefined
  let watchdog: LoopWatcher | undefined
  let crashGuard: CrashGuard | undefined
  let waiting: PluginsOnDemand | undefined
  // Loaded by any path (on the first need, an enable, a reload): a one-shot's wait is over.
  const endWait = () => {
    waiting?.dispose()
    waiting = undefined
  }
  // What the loaded plugins add to the CLI, by plugin, for <data dir>/cache/cli.json.
  const cli = new Map<string, CliContribution>()
  let known: ReturnType<typeof builtinCli> | undefined
  // The built-in commands and this package's version, read once, when first needed.
  const builtins = () => {
    known ??= builtinCli()
    return known
  }

  return {
    ...declaredService(pluginsDeclaration),
    // Loading is bounded plugin by plugin (import, constructor, onLoad), and may add up past the
    // kernel's 30 s: a few slow plugins must not stop the manager from starting.
    startTimeoutMs: START_TIMEOUT_MS,
    async start({ bus, registry, logger, config }) {
      const projections = registry.resolve(PROJECTIONS)
      await projections.register(registryProjection)
      await bus.request('events:declare_facts', {
        types: [...PLUGIN_FACTS, 'plugins:reloaded', 'plugins:event_triggered'],
      })
      bus.setIdentifier(eventIdentifier(bus.catalogue.actions()))
      const setting = async (key: string) => (await bus.request('settings:get', { key })).value
      const searchPaths = async (): Promise<SearchPath[]> => {
        const user = String(await setting('paths.plugins'))
        const paths: SearchPath[] = [{ source: 'user', dir: isAbsolute(user) ? user : resolve(config.dataDir, user) }]
        const [defaults, examples] = shippedPaths(options.packageRoot)
        if (options.defaults !== false) paths.push(defaults)
        if ((await setting('plugins.dev_examples')) === true) paths.push(examples)
        return paths
      }
      const hookTimeoutMs = Number(await setting('plugins.hook_timeout_ms'))
      const blockedFile = join(config.dataDir, 'plugins.blocked.json')
      // Only plugins in this thread can block its loop: with each in a thread of its own, no
      // watchdog thread is started (plugins.isolation is read at start; a change takes a restart).
      const inProcess = !options.threadEntry || String(await setting('plugins.isolation')) === 'none'
      if (options.watchdog && inProcess) {
        const limitMs = loopLimitMs(hookTimeoutMs)
        // The plugin and the hook are the watcher's to fill in: the code last entered when it acts.
        const { code, message } = new SmError('SM_ERR_PLUGIN_BLOCKED_LOOP', {
          plugin: '{plugin}',
          hook: '{hook}',
          seconds: Math.round(limitMs / 1000),
        })
        watchdog = new LoopWatcher({
          blockedMs: limitMs,
          error: { code, message },
          record: { blockedFile, logFile: logFile(config.dataDir) },
          onError: (error) => logger.error('the loop watchdog thread failed: plugins run unwatched', { error }),
        })
      }
      if (options.crashGuard && options.load !== false)
        crashGuard = new CrashGuard(join(config.dataDir, 'plugins.running.json'), logger)
      const plugins = new PluginManager({
        crashGuard,
        onEnter: watchdog && ((plugin, hook) => watchdog?.enter(plugin, hook)),
        scope: bus,
        projections,
        runTask: (name, fn) => registry.resolve(TASKS).run(name, fn),
        logger,
        rootLogger: registry.resolve(LoggerToken),
        importer: new PluginImporter(
          { sdk: options.sdk, web: options.webSdk, cli: options.cliSdk },
          join(config.dataDir, 'cache', 'jiti'),
        ),
        searchPaths,
        hookTimeoutMs: async () => Number(await setting('plugins.hook_timeout_ms')),
        threads: options.threadEntry
          ? {
              entry: options.threadEntry,
              cacheDir: join(config.dataDir, 'cache', 'jiti'),
              logLevel: options.logLevel ?? 'info',
              isolation: async () => String(await setting('plugins.isolation')),
              importMs: async () => Number(await setting('plugins.import_timeout_s')) * 1000,
              memoryMb: async (plugin) => {
                const own = ((await setting('plugins.max_memory_mb_by_plugin')) ?? {}) as Record<string, unknown>
                return Number(own[plugin] ?? (await setting('plugins.max_memory_mb')))
              },
              externalMb: async () => Number(await setting('plugins.max_external_mb')),
              strikes: async () => ({
                max: Number(await setting('plugins.max_strikes')),
                windowMs: Number(await setting('plugins.strike_window_s')) * 1000,
                firstDelayS: Number(await setting('plugins.restart_delay_s')),
              }),
            }
          : undefined,
        registryFile: join(config.dataDir, 'plugins.json'),
        blockedFile,
        contribute: async (plugin) => {
          // Commands, topics and menu items: described now, so the CLI never imports a plugin to list them.
          const { candidate, version } = plugin.definition
          const { cli: described, web } = await plugin.contributions()
          const cliContribution: CliContribution = {
            plugin: plugin.name,
            root: candidate.root,
            entry: candidate.entry,
            hash: candidate.hash,
            version,
            ...described,
          }
          checkCliConflicts(plugin.name, cliContribution, builtins(), [...cli.values()])
          // The web server (in the manager) takes routers, template folders and static mounts live;
          // a threaded plugin's routers are descriptions, and their requests are handed to its thread.
          if (registry.has(WEB_CONTRIBUTIONS))
            registry.resolve(WEB_CONTRIBUTIONS).claim({
              plugin: plugin.name,
              root: dirname(candidate.entry),
              ...web,
              ...(plugin instanceof ThreadedPlugin ? { thread: plugin } : {}),
            })
          cli.set(plugin.name, cliContribution)
        },
        withdraw: async (name) => {
          cli.delete(name)
          if (registry.has(WEB_CONTRIBUTIONS)) registry.resolve(WEB_CONTRIBUTIONS).release(name)
        },
        settled: () => {
          endWait()
          try {
            writeCliCache(cliCacheFile(config.dataDir), builtins().version, [...cli.values()])
          } catch (error) {
            logger.warn(`the CLI cache could not be written (${reasonOf(error)}); the CLI rebuilds it itself`)
          }
        },
      })
      manager = plugins

      // A plugin dropped into the folder since the manager looked is listed (and can be inspected) at once.
      bus.handle('plugins:list', async () => {
        await plugins.discoverAdded()
        return (await plugins.records()).map(({ hash: _hash, ...record }) => record)
      })
      bus.handle('plugins:info', async ({ name }) => {
        await plugins.discoverAdded()
        const { hash: _hash, ...record } = await plugins.record(name)
        const loaded = plugins.loaded(name)
        return { ...record, hooks: [...(loaded?.hooks ?? [])], listeners: loaded?.listeners ?? 0 }
      })
      bus.handle('plugins:set_enabled', async ({ name, enabled }) => {
        // A one-shot enable or disable: the plugins that hook it (a veto) run first, as in a manager.
        await waiting?.now()
        return plugins.setEnabled(name, enabled)
      })
      // Identifies this manager in plugins:reloaded facts, so it does not react to its own.
      const origin = randomUUID()
      bus.handle('plugins:reload', async () => {
        endWait() // it loads them all itself
        const report = await plugins.reload()
        await bus.emit('plugins:reloaded', { origin, loaded: report.loaded, failed: report.failed })
        return report
      })
      // A plugin's sendEvent from its CLI command, sent here as the plugin.
      bus.handle('plugins:send_event', ({ event, payload }) => sendCustomEvent(bus, event, payload))
      bus.handle('plugins:trigger_event', async ({ event, payload }) => {
        const report = await sendCustomEvent(bus, event, payload)
        // sendCustomEvent accepted it, so it is a plain JSON object.
        await bus.emit('plugins:event_triggered', {
          event,
          payload: (payload ?? {}) as Record<string, unknown>,
          report,
        })
        return report
      })
      bus.on('manager:started', () => plugins.managerStarted())
      // Another process enabled, disabled or reloaded plugins: follow it here too.
      bus.on('events:appended', ({ events }) => {
        const failed = (error: unknown) => logger.error('following a plugin change failed', { error })
        if (events.some((e) => e.type === 'plugins:reloaded' && (e.payload as { origin?: string }).origin !== origin)) {
          plugins.reload().catch(failed)
        } else if (events.some((e) => e.type === 'after_set_plugin_status')) {
          plugins.reconcile().catch(failed)
        }
      })
      const loadAll = async () => {
        const report = await plugins.loadAll({ retryFailed: options.retryFailed })
        logger.info(`plugins: ${report.loaded.length} loaded, ${report.failed.length} failed`, {
          ms: Math.round(report.ms),
        })
      }
      if (options.load === false || options.load === 'on-demand') {
        const records = await plugins.discoverOnly()
        const needs = options.load && eventsNeedingPlugins(records, bus.catalogue.actions())
        // The CLI learns the plugins' commands from the cache that loading writes: gone (deleted,
        // a new cache folder), it is written again now, as any command did before.
        if (needs && !existsSync(cliCacheFile(config.dataDir))) return loadAll()
        if (needs) waiting = loadOnFirstNeed(bus, needs, loadAll, () => plugins.busy)
        return
      }
      await loadAll()
    },
    async stop() {
      try {
        await manager?.unloadAll()
      } finally {
        // A stop whose unloading threw is still a stop: no plugin died with this process.
        crashGuard?.end()
      }
      await watchdog?.stop()
      waiting = undefined
      manager = undefined
      watchdog = undefined
      crashGuard = undefined
    },
  }
}
