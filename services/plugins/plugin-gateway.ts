import {
  type BusScope,
  type CommandName,
  type CommandPayload,
  type CommandReply,
  type CommandSpec,
  type Disposable,
  type MessageEntry,
  runInContext,
  SmError,
  toSmError,
} from '../../kernel'
import type { RunTask, TaskContext } from '../tasks/contract'
import { type ApiContext, type Operation, parseArguments } from './api-operation'
import { apiOperations } from './api-table'
import type { DeliveryReport } from './contract'
import { listenForCustomEvent, sendCustomEvent } from './custom-events'
import type { CallOptions } from './guarded-call'
import type { CustomEventListener, PluginApi } from './plugin-api'

/** A plugin's `this.api`, and the switch that turns it off when the plugin stops. */
export interface PluginGateway {
  readonly api: PluginApi
  /** Its operations by name (a thread is handed their names). */
  readonly operations: Readonly<Record<string, Operation>>
  /** From now on every call fails with SM_ERR_PLUGIN_REVOKED and registers nothing. */
  revoke(): void
}

/**
 * How a gateway reaches the manager: the plugin's bus scope in the manager, or a CLI session
 * (the running manager over the bridge) for the plugin's commands and menu items.
 */
export interface GatewayLink {
  request<K extends CommandName>(name: K, payload: CommandPayload<K>): Promise<CommandReply<K>>
  /** Sends a custom event as the plugin. */
  send(name: string, payload: Record<string, unknown> | undefined): Promise<DeliveryReport>
  /** Registers the plugin's listener for a custom event. */
  listen(name: string, listener: CustomEventListener): Disposable | Promise<Disposable>
  /** Runs the plugin's function as a task where it is (a function is not a message); answers its id. */
  runTask(name: string, fn: (ctx: TaskContext) => Promise<unknown>): Promise<{ taskId: string }>
}

/** The link of a plugin loaded in the manager: its own bus scope. */
export function scopeLink(scope: BusScope, options: CallOptions, tasks: RunTask): GatewayLink {
  return {
    request: (name, payload) => scope.request(name, payload),
    send: (name, payload) => sendCustomEvent(scope, name, payload),
    listen: (name, listener) => listenForCustomEvent(scope, name, listener, options),
    runTask: async (name, fn) => {
      const { id, done } = tasks(name, fn)
      done.catch(() => {}) // recorded as tasks:finished; nobody awaits a plugin's task
      return { taskId: id }
    },
  }
}

/**
 * Builds `this.api` for one plugin from the operations table (api-table.ts) and the `api` doors of
 * the commands it is given (a kernel's catalogue's; a CLI process: `CLI_API_COMMANDS`): each operation under
 * its name and its aliases, its arguments checked against its parameters. Every call runs as
 * `plugin:<name>`, so what it causes is attributed to the plugin in the event log, and goes
 * through the bus like any other caller's; every failure rejects with a coded error. Once the
 * plugin is unloaded, disabled or failed the gateway is revoked: a late `onLoad` or a forgotten
 * timer can no longer act.
 */
export function createPluginGateway(
  plugin: string,
  link: GatewayLink,
  options: Pick<CallOptions, 'logger'> & {
    /** The secret keys the plugin declared (`static secretSettings`): its own to read back. */
    readonly ownSecrets?: readonly string[]
    /** The commands whose `api` doors it offers. */
    readonly commands: readonly MessageEntry<CommandSpec>[]
  },
): PluginGateway {
  const operations = apiOperations(options.commands)
  const ctx: ApiContext = { plugin, link, logger: options.logger, ownSecrets: options.ownSecrets ?? [], operations }
  const actor = `plugin:${plugin}`
  let revoked = false
  const call =
    (name: string, operation: Operation) =>
    async (...args: unknown[]): Promise<unknown> => {
      if (revoked) throw new SmError('SM_ERR_PLUGIN_REVOKED', { plugin, call: `this.api.${name}` })
      const parsed = parseArguments(plugin, name, operation, args)
      try {
        return await runInContext({ actor }, () => operation.run(ctx, ...(parsed as [])))
      } catch (error) {
        // One error style: whatever failed, the plugin gets a coded error (a raw ENOSPC is SM_ERR_DISK_FULL).
        throw toSmError(error)
      }
    }
  const entries = Object.entries(operations).flatMap(([name, operation]) =>
    [name, ...operation.aliases].map((as) => [as, call(as, operation)] as const),
  )
  return {
    api: Object.freeze(Object.fromEntries(entries)) as PluginApi,
    operations,
    revoke: () => {
      revoked = true
    },
  }
}

/**
 * The `custom.*` keys a plugin class declares secret (`static secretSettings = ['rcon_pw']`, the
 * prefix optional); a declaration that is not a list of keys is refused.
 */
export function declaredSecretKeys(plugin: string, declared: unknown): string[] {
  if (declared === undefined) return []
  if (!Array.isArray(declared) || declared.some((key) => typeof key !== 'string' || key.trim() === ''))
    throw new SmError('SM_ERR_PLUGIN_LOAD_FAILED', {
      plugin,
      phase: 'its static secretSettings',
      reason: "it must be a list of setting keys under 'custom.', such as ['rcon_password']",
    })
  return (declared as string[]).map((key) => (key.startsWith('custom.') ? key : `custom.${key}`))
}
