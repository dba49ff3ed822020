import { z } from 'zod'
import { SmError } from '../../kernel'
import { isSecretKey, withoutSecrets } from '../../lib/secrets'
import type { TaskContext } from '../tasks/contract'
import { type ApiContext, type ApiOf, change, describeParams, done, type Operation, read } from './api-operation'
import type { ApiDescription, CustomEventListener } from './plugin-api'

const name = z.string()
const serverName = ['serverName', name] as const
/** Any JSON value: the service that stores it checks it (size, what JSON can hold). */
const jsonValue = z.unknown().refine((value) => value !== undefined, { error: 'it is missing: pass a JSON value' })
const backupOptions = ['options', z.strictObject({ stopStartServer: z.boolean().optional() }).default({})] as const
const fn = <T>(type: string) =>
  z.custom<T>((value) => typeof value === 'function', { error: 'it is not a function' }).meta({ type })

/**
 * `this.api`, declared once: each operation's name, aliases, parameters (zod schemas, against
 * which every call's arguments are checked), description, kind and work. The `PluginApi` type,
 * `listAvailableApis()`, the reference in docs/plugins.md and the object plugins call all come
 * from here. Every failure rejects with a coded SmError, reads and changes alike; a change a
 * `before_*` hook vetoed rejects with its service's `..._CANCELLED` code, naming who and why.
 */
export const API_TABLE = {
  sendEvent: change({
    aliases: ['send_event'],
    params: [
      ['name', name],
      ['payload', z.record(z.string(), z.unknown()).optional().meta({ default: '{}' })],
    ],
    description:
      'Sends the custom event `<namespace>:<event>` with `payload` (a JSON object) to every listener; resolves to the delivery report `{ event, listeners, delivered, skipped, failed }`.',
    run: (ctx, event, payload) => ctx.link.send(event, payload),
  }),

  listenForEvent: change({
    aliases: ['listen_for_event'],
    params: [
      ['name', name],
      ['listener', fn<CustomEventListener>('(payload, meta) => unknown')],
    ],
    description:
      'Listens for the custom event `<namespace>:<event>` until the plugin unloads or reloads: `listener(payload, { event, sender })`. Resolves to a function that stops listening earlier.',
    run: async (ctx, event, listener) => {
      const subscription = await ctx.link.listen(event, listener)
      return () => subscription.dispose()
    },
  }),

  getGlobalSetting: read({
    aliases: ['get_global_setting'],
    params: [['key', name]],
    description:
      "A global setting's value (`web.port`, `custom.<key>`), or `undefined` when it has none or no such setting exists. A secret key (declared, marked or named secret) is refused (`SM_ERR_PLUGIN_FORBIDDEN`) and secrets are left out of objects, except the keys the plugin declared in `static secretSettings`, which it gets in full.",
    run: async (ctx, key) => {
      const forbidden = () =>
        new SmError('SM_ERR_PLUGIN_FORBIDDEN', { plugin: ctx.plugin, what: `read the secret setting '${key}'` })
      const own = ctx.ownSecrets.some((k) => key === k || key.startsWith(`${k}.`))
      if (!own && isSecretKey(key)) throw forbidden()
      try {
        // Redacted where the secret keys are known (the manager, over the bridge).
        const reply = await ctx.link.request('settings:get', own ? { key } : { key, redact: 'drop' })
        if (!own && reply.secret) throw forbidden()
        return reply.found ? reply.value : undefined
      } catch (error) {
        // "No such setting" reads as absent, as the API promises; a malformed key still throws.
        if ((error as SmError).code === 'SM_ERR_SETTINGS_UNKNOWN_KEY') return undefined
        throw error
      }
    },
  }),

  setCustomGlobalSetting: change({
    aliases: ['set_custom_global_setting'],
    params: [
      ['key', name],
      ['value', jsonValue],
    ],
    description:
      "Stores `value` under `custom.<key>` through the normal, vetoable setting change (an object merges into what is stored); resolves to `{ status: 'success', message, key, value, previous, ... }` (secrets in them redacted). A key given as `custom.x` is taken as `x`, with a warning in the log.",
    run: async (ctx, key, value) => {
      let short = key.trim()
      if (short.startsWith('custom.')) {
        short = short.slice('custom.'.length)
        ctx.logger.warn(
          `setCustomGlobalSetting('${key}') stores custom.${short}: pass the key without 'custom.', the prefix is added for you`,
        )
      }
      const reply = await ctx.link.request('settings:set', { key: `custom.${short}`, value })
      return done(reply, `Global setting 'custom.${short}' updated.`)
    },
  }),

  getPluginStatuses: read({
    params: [],
    description: 'Every known plugin: `{ [name]: { enabled, version, author, description, state } }`.',
    run: async (ctx) => {
      const records = await ctx.link.request('plugins:list', {})
      return Object.fromEntries(
        records.map((r) => [
          r.name,
          { enabled: r.enabled, version: r.version, author: r.author, description: r.description, state: r.state },
        ]),
      )
    },
  }),

  listAvailableApis: read({
    params: [],
    description:
      'The operations of this API, by name: `[{ name, aliases, kind, parameters: [{ name, type, default? }], description }]`.',
    run: async () => describeApi(),
  }),

  listServers: read({
    params: [],
    description:
      'Every registered server with its profile, directory and status now: `[{ name, profile, dir, status, pid, host }]` (`host`: the host agent it lives on, for a server of another machine; `pid` is a process there).',
    run: async (ctx) =>
      (await ctx.link.request('servers:list', {})).map((s) => ({
        name: s.name,
        profile: s.profile,
        dir: s.dir,
        status: s.status,
        pid: s.pid,
        ...(s.host === undefined ? {} : { host: s.host }),
      })),
  }),

  getServerProfile: read({
    params: [serverName],
    description:
      "The game profile in effect for the server (its profile's fields, the server's own over them), as plain data: how to tell its players something (`sayCommand`), how to know who is online (`players`), which replies mean a command was refused (`errorLines`), its ready line, stop command, config files, world and hot-backup protocol. Send a game only the commands its profile names.",
    run: (ctx, server) => ctx.link.request('servers:profile', { name: server }),
  }),

  listPlayers: read({
    params: [serverName],
    description:
      "Who is online on a running server, as its game's list command answers: `{ online, max, names }` (`max` undefined when the game did not say). A read: no command fact, no hook. Rejects with `SM_ERR_SERVER_NOT_RUNNING`, `SM_ERR_SERVER_PLAYERS_UNKNOWN` (its profile cannot tell) or `SM_ERR_SERVER_PLAYERS_UNREADABLE` (the reply was not a list).",
    run: (ctx, server) => ctx.link.request('servers:players', { name: server }),
  }),

  getServerRunningStatus: read({
    aliases: ['get_server_running_status'],
    params: [serverName],
    description:
      "A server's status, and whether its process runs: `{ status, running }` (`running`: starting, running or stopping).",
    run: async (ctx, server) => {
      const { status } = await ctx.link.request('servers:status', { name: server })
      return { status, running: status === 'starting' || status === 'running' || status === 'stopping' }
    },
  }),

  startServer: change({
    aliases: ['start_server'],
    params: [serverName, ['mode', z.enum(['detached', 'direct']).default('detached')]],
    description:
      "Starts a server (the `server_start` action: the plugin's own `before_server_start` hooks see it too); resolves once it is up, to `{ status: 'success', message, ... }`.",
    run: async (ctx, server, mode) =>
      done(await ctx.link.request('servers:start', { name: server, mode }), `Server '${server}' started.`),
  }),

  stopServer: change({
    params: [serverName],
    description:
      "Stops a server: its stop command, then SIGTERM, then SIGKILL; resolves to `{ status: 'success', message, ... }`.",
    run: async (ctx, server) =>
      done(await ctx.link.request('servers:stop', { name: server }), `Server '${server}' stopped.`),
  }),

  restartServer: change({
    params: [serverName],
    description:
      "Stops a server if it runs, then starts it (both actions fire); resolves to `{ status: 'success', message, ... }`.",
    run: async (ctx, server) =>
      done(await ctx.link.request('servers:restart', { name: server }), `Server '${server}' restarted.`),
  }),

  sendCommand: change({
    aliases: ['send_command'],
    params: [serverName, ['command', name]],
    description:
      "Sends one console command (the `command_send` action); resolves to `{ status: 'success', message, reply }`, `reply` holding the lines the server answered. A command the game refused rejects with `SM_ERR_SERVER_COMMAND_REFUSED`, its answer in the error's `params.reply`.",
    run: async (ctx, server, command) =>
      done(await ctx.link.request('servers:send', { name: server, command }), `Sent to '${server}'.`),
  }),

  getServerSetting: read({
    params: [serverName, ['key', name]],
    description:
      "A server's setting in effect (`autostart`, `restart.max_restarts`, `backup.hot`, `custom.<key>`), or `undefined`; secrets are left out.",
    run: async (ctx, server, key) => {
      const { value } = await ctx.link.request('servers:get_setting', { name: server, key })
      return withoutSecrets(value, 'drop')
    },
  }),

  setServerCustomValue: change({
    params: [serverName, ['key', name], ['value', jsonValue]],
    description:
      "Stores `value` under the server's `custom.<key>` (recorded as a fact); resolves to `{ status: 'success', message, key, value, previous }`.",
    run: async (ctx, server, key, value) => {
      const short = key.trim().replace(/^custom\./, '')
      return done(
        await ctx.link.request('servers:set_setting', { name: server, key: `custom.${short}`, value }),
        `Server setting 'custom.${short}' of '${server}' updated.`,
      )
    },
  }),

  backupWorld: change({
    aliases: ['backup_world'],
    params: [serverName, backupOptions],
    description:
      "Backs up a server's world, as every backup is: a running server hot where its profile can (unless `stopStartServer`), else stopped and started again; resolves to `{ status: 'success', message, files, method, warning? }` (`warning` when it was stopped for it).",
    run: async (ctx, server, options) =>
      done(
        await ctx.link.request('servers:backup', { name: server, type: 'world', stopStart: options.stopStartServer }),
        `World of '${server}' backed up.`,
      ),
  }),

  backupAll: change({
    params: [serverName, backupOptions],
    description: "Backs up a server's world and config, as `backupWorld` does the world.",
    run: async (ctx, server, options) =>
      done(
        await ctx.link.request('servers:backup', { name: server, type: 'all', stopStart: options.stopStartServer }),
        `'${server}' backed up.`,
      ),
  }),

  restoreWorld: change({
    params: [serverName, ['file', name], backupOptions],
    description:
      "Puts a world or config backup (`file`, a name from `listBackups`) back; a running server only with `stopStartServer`. Resolves to `{ status: 'success', message, restored, safety }`.",
    run: async (ctx, server, file, options) =>
      done(
        await ctx.link.request('servers:restore', { name: server, file, stopStart: options.stopStartServer }),
        `Restored ${file} into '${server}'.`,
      ),
  }),

  listBackups: read({
    params: [serverName],
    description: "A server's backups, newest first: `[{ file, kind, bytes, createdAt }]`.",
    run: (ctx, server) => ctx.link.request('servers:backups', { name: server }),
  }),

  pruneBackups: change({
    params: [serverName, ['keep', z.number().int().min(0).optional().meta({ default: 'retention.backups' })]],
    description:
      "Applies the backup retention now, or keeps `keep` of each kind; resolves to `{ status: 'success', message, pruned }`.",
    run: async (ctx, server, keep) =>
      done(await ctx.link.request('servers:prune', { name: server, keep }), `Backups of '${server}' pruned.`),
  }),

  runTask: change({
    params: [
      ['name', name],
      ['fn', fn<(task: TaskContext) => Promise<unknown>>('({ id, signal, progress }) => Promise<unknown>')],
    ],
    description:
      'Runs long work as a tracked task (listed by `server-manager tasks`, recorded as facts) and resolves to `{ taskId }` at once. `fn` gets `{ id, signal, progress(percent, message?) }`: report progress, and stop when `signal` is aborted (`tasks cancel <id>`).',
    run: (ctx, task, work) => ctx.link.runTask(`${ctx.plugin}: ${task}`, work),
  }),
} satisfies Record<string, Operation>

export type ApiTable = typeof API_TABLE

/** `this.api`'s type: every operation of the table under its name and its aliases. */
export type ApiFromTable = ApiOf<ApiTable>

/** Every operation with its aliases, kind, parameters and description, by name. */
export function describeApi(): ApiDescription[] {
  return Object.entries(API_TABLE as Record<string, Operation>)
    .map(([op, operation]) => ({
      name: op,
      aliases: [...operation.aliases],
      kind: operation.kind,
      parameters: describeParams(operation),
      description: operation.description,
    }))
    .sort((a, b) => a.name.localeCompare(b.name))
}

export type { ApiContext }
