import {
  type ActionResult,
  type BusScope,
  type CommandName,
  type CommandPayload,
  type CommandReply,
  type Disposable,
  reasonOf,
  runInContext,
  SmError,
  toSmError,
} from '../../kernel'
import { isSecretKey, withoutSecrets } from '../../lib/secrets'
import type { DeliveryReport } from './contract'
import { listenForCustomEvent, sendCustomEvent } from './custom-events'
import type { CallOptions } from './guarded-call'
import type { ApiDescription, CustomEventListener, PluginApi } from './plugin-api'

const APIS: readonly ApiDescription[] = [
  {
    name: 'getGlobalSetting',
    parameters: [{ name: 'key', type: 'string' }],
    description: "A global setting's value (web.port, custom.<key>), or undefined when it has none.",
  },
  {
    name: 'getPluginStatuses',
    parameters: [],
    description: 'Every known plugin with its enabled flag, version, author, description and state.',
  },
  { name: 'listAvailableApis', parameters: [], description: 'The operations of this API, with their parameters.' },
  {
    name: 'listenForEvent',
    parameters: [
      { name: 'name', type: 'string' },
      { name: 'listener', type: '(payload, meta) => unknown' },
    ],
    description:
      'Listens for a custom event <namespace>:<event> until the plugin unloads; resolves to a function that stops listening.',
  },
  {
    name: 'listServers',
    parameters: [],
    description: 'Every registered server with its profile, directory and status now.',
  },
  {
    name: 'getServerRunningStatus',
    parameters: [{ name: 'serverName', type: 'string' }],
    description: "A server's status and whether its process runs: { status, running }.",
  },
  {
    name: 'getServerProfile',
    parameters: [{ name: 'serverName', type: 'string' }],
    description:
      "The game profile in effect for a server (its profile's fields, the server's own over them): sayCommand, players, errorLines, readyLine, ...",
  },
  {
    name: 'listPlayers',
    parameters: [{ name: 'serverName', type: 'string' }],
    description:
      "Who is online on a running server, as its game's list command answers: { online, max, names }; rejects with a coded error when its game cannot tell.",
  },
  {
    name: 'startServer',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'mode', type: "'detached' | 'direct'", default: "'detached'" },
    ],
    description: 'Starts a server (the server_start action); resolves with the action result once it is up.',
  },
  {
    name: 'stopServer',
    parameters: [{ name: 'serverName', type: 'string' }],
    description: 'Stops a server (stop command, then SIGTERM, then SIGKILL); returns the action result.',
  },
  {
    name: 'restartServer',
    parameters: [{ name: 'serverName', type: 'string' }],
    description: 'Stops a server if it runs, then starts it; returns the action result.',
  },
  {
    name: 'sendCommand',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'command', type: 'string' },
    ],
    description: "Sends one console command; the result's reply holds the lines the server answered.",
  },
  {
    name: 'getServerSetting',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'key', type: 'string' },
    ],
    description: "A server's setting in effect (autostart, restart.*, backup.*, custom.<key>), or undefined.",
  },
  {
    name: 'setServerCustomValue',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'key', type: 'string' },
      { name: 'value', type: 'JSON' },
    ],
    description: "Stores a value under the server's custom.<key>; returns the action result.",
  },
  {
    name: 'backupWorld',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'options', type: '{ stopStartServer?: boolean }', default: '{}' },
    ],
    description:
      "Backs up a server's world (a running server hot where its profile can, else stopped and started again with a warning); returns the action result.",
  },
  {
    name: 'backupAll',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'options', type: '{ stopStartServer?: boolean }', default: '{}' },
    ],
    description: "Backs up a server's world and config; returns the action result.",
  },
  {
    name: 'restoreWorld',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'file', type: 'string' },
      { name: 'options', type: '{ stopStartServer?: boolean }', default: '{}' },
    ],
    description: 'Puts a backup (a name from listBackups) back in place; returns the action result.',
  },
  {
    name: 'listBackups',
    parameters: [{ name: 'serverName', type: 'string' }],
    description: "A server's backups, newest first.",
  },
  {
    name: 'pruneBackups',
    parameters: [
      { name: 'serverName', type: 'string' },
      { name: 'keep', type: 'number', default: 'retention.backups' },
    ],
    description: 'Applies the backup retention now; returns the action result.',
  },
  {
    name: 'runTask',
    parameters: [
      { name: 'name', type: 'string' },
      { name: 'fn', type: '({ id, signal, progress }) => Promise<unknown>' },
    ],
    description: 'Runs long work as a tracked task; resolves to { taskId } at once.',
  },
  {
    name: 'sendEvent',
    parameters: [
      { name: 'name', type: 'string' },
      { name: 'payload', type: 'object', default: '{}' },
    ],
    description: 'Sends a custom event to every listener and resolves to the delivery report.',
  },
  {
    name: 'setCustomGlobalSetting',
    parameters: [
      { name: 'key', type: 'string' },
      { name: 'value', type: 'JSON' },
    ],
    description: 'Stores a value under custom.<key>; returns the action result.',
  },
]

/** A plugin's `this.api`, and the switch that turns it off when the plugin stops. */
export interface PluginGateway {
  readonly api: PluginApi
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
}

/** The link of a plugin loaded in the manager: its own bus scope. */
export function scopeLink(scope: BusScope, options: CallOptions): GatewayLink {
  return {
    request: (name, payload) => scope.request(name, payload),
    send: (name, payload) => sendCustomEvent(scope, name, payload),
    listen: (name, listener) => listenForCustomEvent(scope, name, listener, options),
  }
}

/**
 * Builds `this.api` for one plugin. Every call runs as `plugin:<name>`, so what it causes is
 * attributed to the plugin in the event log, and goes through the bus like any other caller's.
 * Once the plugin is unloaded, disabled or failed the gateway is revoked: a late `onLoad` or a
 * forgotten timer can no longer act.
 */
export function createPluginGateway(
  plugin: string,
  link: GatewayLink,
  options: Pick<CallOptions, 'logger'> & {
    /** The secret keys the plugin declared (`static secretSettings`): its own to read back. */
    readonly ownSecrets?: readonly string[]
  },
): PluginGateway {
  const ownSecrets = options.ownSecrets ?? []
  const actor = `plugin:${plugin}`
  let revoked = false
  const live =
    <A extends unknown[], R>(call: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (revoked) return Promise.reject(new SmError('SM_ERR_PLUGIN_REVOKED', { plugin, call: `this.api.${call}` }))
      return runInContext({ actor }, () => fn(...args))
    }

  const api: PluginApi = Object.freeze({
    sendEvent: live('sendEvent', (name: string, payload?: Record<string, unknown>) => link.send(name, payload)),

    listenForEvent: live('listenForEvent', async (name: string, listener: CustomEventListener) => {
      const subscription = await link.listen(name, listener)
      return () => subscription.dispose()
    }),

    getGlobalSetting: live('getGlobalSetting', async (key: string) => {
      const forbidden = () =>
        new SmError('SM_ERR_PLUGIN_FORBIDDEN', { plugin, what: `read the secret setting '${key}'` })
      const own = typeof key === 'string' && ownSecrets.some((k) => key === k || key.startsWith(`${k}.`))
      if (!own && typeof key === 'string' && isSecretKey(key)) throw forbidden()
      try {
        // Redacted where the secret keys are known (the manager, over the bridge).
        const reply = await link.request('settings:get', own ? { key } : { key, redact: 'drop' })
        if (own) return reply.found ? reply.value : undefined
        if (reply.secret) throw forbidden()
        return reply.found ? reply.value : undefined
      } catch (error) {
        // "No such setting" reads as absent, as the API promises; a malformed key still throws.
        if ((error as SmError).code === 'SM_ERR_SETTINGS_UNKNOWN_KEY') return undefined
        throw error
      }
    }),

    setCustomGlobalSetting: live('setCustomGlobalSetting', async (key: string, value: unknown) => {
      let name = typeof key === 'string' ? key.trim() : ''
      if (name.startsWith('custom.')) {
        name = name.slice('custom.'.length)
        options.logger.warn(
          `setCustomGlobalSetting('${key}') stores custom.${name}: pass the key without 'custom.', the prefix is added for you`,
        )
      }
      try {
        await link.request('settings:set', { key: `custom.${name}`, value })
        return { status: 'success', message: `Global setting 'custom.${name}' updated.` } as ActionResult
      } catch (error) {
        return { status: 'error', message: reasonOf(error), code: (error as SmError).code } as ActionResult
      }
    }),

    getPluginStatuses: live('getPluginStatuses', async () => {
      const records = await link.request('plugins:list', {})
      return Object.fromEntries(
        records.map((r) => [
          r.name,
          { enabled: r.enabled, version: r.version, author: r.author, description: r.description, state: r.state },
        ]),
      )
    }),

    listServers: live('listServers', async () =>
      (await link.request('servers:list', {})).map((s) => ({
        name: s.name,
        profile: s.profile,
        dir: s.dir,
        status: s.status,
        pid: s.pid,
      })),
    ),

    getServerRunningStatus: live('getServerRunningStatus', async (serverName: string) => {
      const { status } = await link.request('servers:status', { name: serverName })
      return { status, running: status === 'starting' || status === 'running' || status === 'stopping' }
    }),

    startServer: live('startServer', (serverName: string, mode: 'detached' | 'direct' = 'detached') =>
      asResult(() => link.request('servers:start', { name: serverName, mode }), `Server '${serverName}' started.`),
    ),

    stopServer: live('stopServer', (serverName: string) =>
      asResult(() => link.request('servers:stop', { name: serverName }), `Server '${serverName}' stopped.`),
    ),

    restartServer: live('restartServer', (serverName: string) =>
      asResult(() => link.request('servers:restart', { name: serverName }), `Server '${serverName}' restarted.`),
    ),

    sendCommand: live('sendCommand', (serverName: string, command: string) =>
      asResult(() => link.request('servers:send', { name: serverName, command }), `Sent to '${serverName}'.`),
    ),

    getServerProfile: live('getServerProfile', (serverName: string) =>
      link.request('servers:profile', { name: serverName }),
    ),

    // A read: no command_send fact, no hook, and the reply read by the server's profile.
    listPlayers: live('listPlayers', (serverName: string) => link.request('servers:players', { name: serverName })),

    getServerSetting: live('getServerSetting', async (serverName: string, key: string) => {
      const { value } = await link.request('servers:get_setting', { name: serverName, key })
      return withoutSecrets(value, 'drop')
    }),

    setServerCustomValue: live('setServerCustomValue', (serverName: string, key: string, value: unknown) => {
      const name = String(key ?? '')
        .trim()
        .replace(/^custom\./, '')
      return asResult(
        () => link.request('servers:set_setting', { name: serverName, key: `custom.${name}`, value }),
        `Server setting 'custom.${name}' of '${serverName}' updated.`,
      )
    }),

    backupWorld: live('backupWorld', (serverName: string, options: { stopStartServer?: boolean } = {}) =>
      asResult(
        () => link.request('servers:backup', { name: serverName, type: 'world', stopStart: options.stopStartServer }),
        `World of '${serverName}' backed up.`,
      ),
    ),

    backupAll: live('backupAll', (serverName: string, options: { stopStartServer?: boolean } = {}) =>
      asResult(
        () => link.request('servers:backup', { name: serverName, type: 'all', stopStart: options.stopStartServer }),
        `'${serverName}' backed up.`,
      ),
    ),

    restoreWorld: live(
      'restoreWorld',
      (serverName: string, file: string, options: { stopStartServer?: boolean } = {}) =>
        asResult(
          () => link.request('servers:restore', { name: serverName, file, stopStart: options.stopStartServer }),
          `Restored ${file} into '${serverName}'.`,
        ),
    ),

    listBackups: live('listBackups', (serverName: string) => link.request('servers:backups', { name: serverName })),

    pruneBackups: live('pruneBackups', (serverName: string, keep?: number) =>
      asResult(() => link.request('servers:prune', { name: serverName, keep }), `Backups of '${serverName}' pruned.`),
    ),

    runTask: live('runTask', (name: string, fn: Parameters<PluginApi['runTask']>[1]) =>
      link.request('tasks:run', { name: `${plugin}: ${String(name)}`, fn }),
    ),

    listAvailableApis: live('listAvailableApis', async () =>
      [...APIS]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((api) => ({ ...api, parameters: api.parameters.map((p) => ({ ...p })) })),
    ),
  })
  return {
    api,
    revoke: () => {
      revoked = true
    },
  }
}

/**
 * An operation's outcome as an action result: `success` with its fields, `cancelled` on a veto,
 * else `error` with the code (and `reply` for a console command the game refused).
 */
async function asResult(fn: () => Promise<object>, message: string): Promise<ActionResult> {
  try {
    const value = await fn()
    return { ...value, status: 'success', message }
  } catch (error) {
    // Coded, always: a raw ENOSPC is SM_ERR_DISK_FULL (free space), not a code-less result.
    const coded = toSmError(error)
    const status = coded.code === 'SM_ERR_SERVER_CHANGE_CANCELLED' ? 'cancelled' : 'error'
    const message = coded.code === 'SM_ERR_INTERNAL' ? reasonOf(error) : coded.message
    // A command the game refused was still answered: the plugin gets the reply, as on success.
    const reply =
      coded.code === 'SM_ERR_SERVER_COMMAND_REFUSED'
        ? { reply: (coded as SmError<'SM_ERR_SERVER_COMMAND_REFUSED'>).params.reply }
        : {}
    return { status, message, code: coded.code, ...reply }
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
