import { z } from 'zod'
import { type CommandSpec, type MessageEntry, SmError } from '../../kernel'
import { isSecretKey, withoutSecrets } from '../../lib/secrets'
import type { TaskContext } from '../tasks/contract'
import { type ApiFromCommands, commandOperations } from './api-commands'
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
 * `this.api`'s operations that do more than one command (those that are one are declared on the
 * command: api-commands.ts), declared once: each operation's name, aliases, parameters (zod schemas, against
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
    run: async (ctx) => describeOperations(ctx.operations),
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

/** `this.api`'s type: every operation of the table and of the commands' doors, under its name and its aliases. */
export type ApiFromTable = ApiOf<ApiTable> & ApiFromCommands

/**
 * `this.api`'s operations by name: the table's, and those a kernel's commands declare an `api`
 * door for (api-commands.ts).
 */
export function apiOperations(commands: readonly MessageEntry<CommandSpec>[]): Readonly<Record<string, Operation>> {
  const table: Record<string, Operation> = API_TABLE
  const derived = commandOperations(commands)
  // A door named as a table operation, or as one's alias, would replace it silently: a bug in a contract.
  const taken = new Set(Object.entries(table).flatMap(([name, operation]) => [name, ...operation.aliases]))
  for (const [name, operation] of Object.entries(derived))
    for (const word of [name, ...operation.aliases])
      if (taken.has(word)) throw new Error(`this.api's ${word} is declared twice (a command's api door and the table)`)
      else taken.add(word)
  return { ...table, ...derived }
}

/** Every operation of `this.api` over those commands, with its aliases, kind, parameters and description, by name. */
export function describeApi(commands: readonly MessageEntry<CommandSpec>[]): ApiDescription[] {
  return describeOperations(apiOperations(commands))
}

function describeOperations(operations: Readonly<Record<string, Operation>>): ApiDescription[] {
  return Object.entries(operations)
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
