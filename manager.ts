/**
 * The composition root, and the door for programs that embed server-manager
 * (`server-manager/manager`): the kernel, the built-in services and `createManager`, which wires
 * them on one data directory. Plugins import the narrow SDK (`server-manager`, index.ts) instead.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as sdk from './index'
import { createKernel, type Kernel, type Logger, type Service, type ServiceDeclaration } from './kernel'
import { logFile, openDataDir, resolveDataDir } from './lib/data-dir'
import { authDeclaration } from './services/auth/declarations'
import { bridgeDeclarations, bridgeService, type HostOptions, natsDeclarations, natsService } from './services/bridge'
import { eventsDeclaration } from './services/events/declarations'
import { filesDeclaration } from './services/files/declarations'
import { createLogger, isLogLevel, type LogLevel, logService } from './services/log'
import { metricsDeclaration } from './services/metrics/declarations'
import { pluginsDeclaration } from './services/plugins/declarations'
import { serversDeclaration } from './services/servers/declarations'
import { settingsDeclaration } from './services/settings/declarations'
import { tasksDeclaration } from './services/tasks/declarations'
import { webDeclarations, webService } from './services/web'

export * from './kernel'
export { resolveDataDir } from './lib/data-dir'
export { bridgeService, natsService } from './services/bridge'
export type * from './services/files/contract'
export { createLogger, type LogLevel, logService, type RootLogger } from './services/log'
export type * from './services/metrics/contract'
export type * from './services/plugins/contract'
export type * from './services/servers/contract'
export { webService } from './services/web'

// The built-in services' implementations load when one is made (a one-shot command that runs
// only some of them never loads the others: createManager's `only`).
type Auth = typeof import('./services/auth')
type Events = typeof import('./services/events')
type Files = typeof import('./services/files')
type Metrics = typeof import('./services/metrics')
type Plugins = typeof import('./services/plugins')
type Servers = typeof import('./services/servers')
type Settings = typeof import('./services/settings')
type Tasks = typeof import('./services/tasks')
export const authService = later(() => (require('./services/auth') as Auth).authService)
export const eventsService = later(() => (require('./services/events') as Events).eventsService)
export const filesService = later(() => (require('./services/files') as Files).filesService)
export const metricsService = later(() => (require('./services/metrics') as Metrics).metricsService)
export const pluginsService = later(() => (require('./services/plugins') as Plugins).pluginsService)
export const serversService = later(() => (require('./services/servers') as Servers).serversService)
export const settingsService = later(() => (require('./services/settings') as Settings).settingsService)
export const tasksService = later(() => (require('./services/tasks') as Tasks).tasksService)

/** A function whose module loads at its first call. */
function later<A extends unknown[], R>(load: () => (...args: A) => R): (...args: A) => R {
  return (...args) => load()(...args)
}

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
  /**
   * Run only these built-in services (by name) and those they depend on; the others are only
   * declared (their commands, codes and settings known, their commands not answered). A one-shot
   * command that names what it uses (ManagerCommand's `services`). Default: all.
   */
  readonly only?: readonly string[]
}

/** This package's version. */
export const VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version

/** How the built-in services are made (createManager passes its own options through). */
export interface BuiltinOptions {
  loadPlugins?: boolean | 'on-demand'
  oneShot?: boolean
  watchdog?: boolean
  defaultPlugins?: boolean
  /** Start the servers set to autostart (a host agent: it loads no plugins, the autostart plugin's home). */
  autostart?: boolean
  /**
   * Run only these (by name) and those they depend on; the others are only declared: their
   * commands, codes and settings are known, their commands not answered. Default: all.
   */
  only?: readonly string[]
}

/** Each built-in service: what it declares, and how it is made (its implementation loaded then). */
const BUILTINS: readonly { readonly declaration: ServiceDeclaration; make(options: BuiltinOptions): Service }[] = [
  { declaration: eventsDeclaration, make: () => eventsService() },
  { declaration: settingsDeclaration, make: () => settingsService() },
  { declaration: authDeclaration, make: () => authService() },
  { declaration: tasksDeclaration, make: () => tasksService() },
  { declaration: metricsDeclaration, make: () => metricsService() },
  { declaration: serversDeclaration, make: (options) => serversService({ autostart: options.autostart }) },
  { declaration: filesDeclaration, make: () => filesService() },
  {
    declaration: pluginsDeclaration,
    make(options) {
      const load = options.loadPlugins ?? true
      return pluginsService({
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
      })
    },
  },
]

/** The built-in services, in the order they are registered (with `only`: those it needs). */
export function builtinServices(options: BuiltinOptions = {}): Service[] {
  const run = needed(options.only)
  return BUILTINS.filter((b) => run.has(b.declaration.name)).map((b) => b.make(options))
}

/** The names of the built-in services that run: `only` (every one without it) and what they depend on. */
function needed(only: readonly string[] | undefined): Set<string> {
  const all = BUILTINS.map((b) => b.declaration)
  if (!only) return new Set(all.map((d) => d.name))
  const run = new Set<string>()
  const add = (name: string) => {
    if (run.has(name)) return
    const declaration = all.find((d) => d.name === name)
    if (!declaration) return // not a built-in one (bridge, web, an embedder's own): theirs to add
    run.add(name)
    for (const dependency of declaration.dependsOn ?? []) add(dependency)
  }
  for (const name of only) add(name)
  return run
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
  // Left out, a service is known by its codes and settings; in a process that runs plugins, whole
  // (a plugin's hooks are checked against every action, whichever service performs it).
  const run = needed(options.only)
  for (const { declaration } of BUILTINS)
    if (!run.has(declaration.name))
      kernel.declare(
        run.has('plugins') ? declaration.declares() : declaration.known,
        `the manager (its ${declaration.name} service)`,
      )
  return kernel.use(
    ...services,
    ...builtinServices({ ...options, autostart: options.host !== undefined }),
    ...(options.services ?? []),
  )
}
