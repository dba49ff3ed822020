import type { Kernel } from '../../kernel'
import type { Disposable } from '../../kernel/disposable'
import { SmError } from '../../kernel/errors'
import type { HostOptions } from '../bridge/contract'
import type { CliPluginRuntime } from '../plugins/contract'
import type { HeldRun, RunHandlers } from '../servers/contract'

/** The manager's built-in services (manager.ts), as a command names those it uses. */
export type BuiltinService = 'events' | 'settings' | 'auth' | 'tasks' | 'metrics' | 'servers' | 'files' | 'plugins'

/** A console log level, as the log service names them. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

/**
 * What the CLI sets when it boots a manager in its own process: a part of the composition root's
 * ManagerOptions (manager.ts), which cli.ts hands it to, so the compiler checks the two agree there.
 */
export interface LocalManagerOptions {
  readonly dataDir: string
  readonly consoleLevel: LogLevel
  readonly loadPlugins: boolean | 'on-demand'
  readonly daemon?: boolean
  /** The daemon joins this NATS broker (`start --nats`). */
  readonly nats?: string
  /** The daemon is a host agent joined to a manager on the broker (`agent start`). */
  readonly host?: HostOptions
  readonly web?: boolean
  readonly defaultPlugins?: boolean
  readonly oneShot: boolean
  /** Run only these built-in services and what they depend on (a one-shot command's `services`). */
  readonly only?: readonly BuiltinService[]
  readonly watchdog: boolean
}

/** A client of the running manager, over the bus bridge. */
export interface ManagerClient {
  request(command: string, payload: unknown, actor: string): Promise<unknown>
  on(event: string, listener: (payload: unknown, meta: { event: string; actor: string }) => void): Disposable
  onClose(callback: (reason: string | undefined) => void): void
  close(): void
}

/**
 * What a CLI process is handed by its composition root (cli.ts, which bin/run.js loads first):
 * the pieces of other services that run in the CLI's own process. The CLI imports none of them
 * (docs/architecture.md, Module boundaries): it talks to the manager in bus messages, and these
 * are the few things a message cannot do for it.
 */
export interface CliWiring {
  /** The running manager of `dataDir` as its client (the bridge's client); undefined when none runs. */
  connect(dataDir: string): Promise<ManagerClient | undefined>
  /** A manager booted in this process, when none runs (loaded only then: a client never needs it). */
  createManager(options: LocalManagerOptions): Kernel
  /** The plugins service's runtime for a plugin's commands and menu items, which run here. */
  plugins(): CliPluginRuntime
  /** Holds a server's run from this process (`server start --direct`): it stops when this process ends. */
  holdRun(dataDir: string, server: string, handlers: RunHandlers): Promise<HeldRun | undefined>
}

let current: CliWiring | undefined

/** Called once by the composition root. */
export function wireCli(wiring: CliWiring): void {
  current = wiring
}

export function wiring(): CliWiring {
  if (!current)
    throw new SmError('SM_ERR_INTERNAL', {
      reason: "the CLI was not wired: load 'server-manager/cli' (dist/cli.js) before its commands, as bin/run.js does",
    })
  return current
}
