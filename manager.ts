/**
 * The composition root, and the door for programs that embed server-manager
 * (`server-manager/manager`): the kernel, the built-in services and `createManager`, which wires
 * them on one data directory. Plugins import the narrow SDK (`server-manager`, index.ts) instead.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as sdk from './index'
import { createKernel, type Kernel, type Logger, type Service } from './kernel'
import { logFile, openDataDir, resolveDataDir } from './lib/data-dir'
import { authService } from './services/auth'
import { bridgeDeclarations, bridgeService, type HostOptions, natsDeclarations, natsService } from './services/bridge'
import { eventsService } from './services/events'
import { filesService } from './services/files'
import { createLogger, isLogLevel, type LogLevel, logService } from './services/log'
import { metricsService } from './services/metrics'
import { pluginsService } from './services/plugins'
import { serversService } from './services/servers'
import { settingsService } from './services/settings'
import { tasksService } from './services/tasks'
import { webDeclarations, webService } from './services/web'

export * from './kernel'
export { resolveDataDir } from './lib/data-dir'
export { authService } from './services/auth'
export { bridgeService, natsService } from './services/bridge'
export { eventsService } from './services/events'
export { filesService } from './services/files'
export type * from './services/files/contract'
export { createLogger, type LogLevel, logService, type RootLogger } from './services/log'
export { metricsService } from './services/metrics'
export type * from './services/metrics/contract'
export { pluginsService } from './services/plugins'
export type * from './services/plugins/contract'
export { serversService } from './services/servers'
export type * from './services/servers/contract'
export { settingsService } from './services/settings'
export { webService } from './services/web'

export interface ManagerOptions {
  /** Defaults to `$SM_DATA_DIR`, else `~/.server-manager/`. */
  readonly dataDir?: string
  /** Defaults to a logger writing to the console and `<data dir>/logs/server-manager.log`. */
  readonly logger?: Logger
  /** Console level of the default logger (default `info`, or `$SM_LOG_LEVEL`). */
  readonly consoleLevel?: LogLevel
  /** Extra services to run next to the built-in ones. */
  readonly services?: readonly Service[]
  /**
   * False: discover plugins and keep the registry current, but run none (read-only commands).
   * `on-demand`: load them when an event one of them would hear is first emitted (one-shot
   * commands: one whose action no plugin hooks runs none). Default true: at start.
   */
  readonly loadPlugins?: boolean | 'on-demand'
  /**
   * The long-running manager of its data directory (`server-manager start`): takes the
   * directory's one manager socket first (a second one is refused) and serves the bus to CLI
   * processes over the bridge.
   */
  readonly daemon?: boolean
  /** The daemon joins this NATS broker (overrides the setting nats.url; `start --nats`). */
  readonly nats?: string
  /** The daemon is a host agent joined to a manager on the broker, as this host (`agent start --nats … --name …`). */
  readonly host?: HostOptions
  /**
   * Serve the web UI and HTTP API (default: with `daemon`; the setting web.enabled can still turn
   * it off). An object serves it on that address instead of the settings web.host and web.port
   * (port 0: any free port; ask `web:status` for the URL).
   */
  readonly web?: boolean | { readonly host?: string; readonly port?: number }
  /**
   * A one-shot command's in-process manager: a plugin whose own code failed is not run again
   * (that takes `plugin enable`, `plugin reload` or a manager start) unless its files changed.
   */
  readonly oneShot?: boolean
  /** End the process, naming the plugin, when plugin code blocks the event loop for good (the CLI's processes). */
  readonly watchdog?: boolean
  /**
   * Whether the shipped default plugins (autostart, lifecycle notifications, backup before start)
   * are discovered. Default true; `SM_DEFAULT_PLUGINS=off` in the environment turns them off (an
   * embedding program, or a test that wants an event log with only its own facts).
   */
  readonly defaultPlugins?: boolean
}

/** This package's version. */
export const VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version

/** The built-in services, in the order they are registered. */
export function builtinServices(
  options: {
    loadPlugins?: boolean | 'on-demand'
    oneShot?: boolean
    watchdog?: boolean
    defaultPlugins?: boolean
    /** Start the servers set to autostart (a host agent: it loads no plugins, the autostart plugin's home). */
    autostart?: boolean
  } = {},
): Service[] {
  const load = options.loadPlugins ?? true
  return [
    eventsService(),
    settingsService(),
    authService(),
    tasksService(),
    metricsService(),
    serversService({ autostart: options.autostart }),
    filesService(),
    pluginsService({
      sdk,
      webSdk: () => require('./web'),
      cliSdk: () => require('./cli'),
      load,
      retryFailed: !options.oneShot,
      watchdog: load !== false && options.watchdog,
      crashGuard: load !== false && options.watchdog && !options.oneShot,
      defaults: options.defaultPlugins ?? process.env.SM_DEFAULT_PLUGINS !== 'off',
      // Each plugin in a worker thread of its own (plugins.isolation), started from this root's sibling.
      threadEntry: join(__dirname, 'plugin-thread.js'),
      logLevel: process.env.SM_LOG_LEVEL === 'debug' ? 'debug' : 'info',
    }),
  ]
}

/** A kernel with the built-in services registered (not started). */
export function createManager(options: ManagerOptions = {}): Kernel {
  const dataDir = options.dataDir ?? resolveDataDir()
  const envLevel = isLogLevel(process.env.SM_LOG_LEVEL) ? process.env.SM_LOG_LEVEL : undefined
  const services: Service[] = []
  // Before anything (the log file first) is written there: created private, or made private.
  const dir = openDataDir(dataDir)
  let logger = options.logger
  if (!logger) {
    const root = createLogger({
      file: logFile(dataDir),
      consoleLevel: envLevel ?? options.consoleLevel ?? 'info',
      fileLevel: envLevel === 'debug' ? 'debug' : 'info',
    })
    services.push(logService(root))
    logger = root
  }
  if (dir.tightened)
    logger.warn(`the data directory was open to other users (mode ${dir.tightened}); it is now 0700`, {
      path: dataDir,
    })
  if (options.daemon)
    services.push(bridgeService({ version: VERSION }), natsService({ url: options.nats, host: options.host }))
  const kernel = createKernel({ config: { dataDir }, logger })
  const web = options.web ?? options.daemon
  if (web) services.push(webService({ version: VERSION, listen: typeof web === 'object' ? web : undefined }))
  // What the manager process runs is declared here too: its settings are set, its codes raised
  // and its commands named from any process of the data directory.
  if (!options.daemon) kernel.declare([...bridgeDeclarations, ...natsDeclarations], 'the manager (its bridge)')
  if (!web) kernel.declare(webDeclarations, 'the manager (its web server)')
  return kernel.use(
    ...services,
    ...builtinServices({ ...options, autostart: options.host !== undefined }),
    ...(options.services ?? []),
  )
}
