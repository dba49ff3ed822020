import type { Command } from '@oclif/core/command'
import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'
import type { Disposable } from '../../kernel/disposable'
import type { SmError } from '../../kernel/errors'
import type { CommandName, CommandPayload, CommandReply } from '../../kernel/maps'
import type { TaskContext } from '../tasks/contract'

/** One plugin's CLI contributions, as `--help`, topic listings and the menu read them (no plugin code). */
export interface CliContribution {
  readonly plugin: string
  /** The plugin's file or folder, the module to import, and its discovery hash (size and mtime of each file). */
  readonly root: string
  readonly entry: string
  readonly hash: string
  readonly version: string
  readonly commands: readonly Command.Cached[]
  readonly topics: readonly { readonly name: string; readonly description?: string }[]
  readonly menuItems: readonly string[]
  /** Set when the plugin no longer imports: its commands are not listed, and running one says why. */
  readonly error?: { readonly code: string; readonly message: string }
  /** The ids its commands had before it broke. */
  readonly knownIds?: readonly string[]
}

/** A command class as plugins return it: an oclif command with a `static id`. */
export type CommandClass = Command.Class & { id?: string; local?: boolean }

/** How long a plugin's code in a CLI process may run, and may hold the event loop. */
export interface CliLimits {
  /** The whole run (a command's `static timeout`); 0 or none: no limit. */
  readonly deadlineMs?: number
  /** The longest the code may block the event loop (a menu item waits on the user, but must not spin). */
  readonly blockedMs?: number
}

/**
 * How a plugin hosted in a CLI process reaches the manager (the CLI's session: the running
 * manager over the bridge, or one booted in that process), every call as `actor`.
 */
export interface CliHostSession {
  readonly dataDir: string
  /** A command of the manager as `actor`, typed by the bus's command map. */
  request<K extends CommandName>(name: K, payload: CommandPayload<K>, actor: string): Promise<CommandReply<K>>
  runTask(name: string, fn: (ctx: TaskContext) => Promise<unknown>): Promise<{ taskId: string }>
  subscribe(
    event: string,
    listener: (payload: unknown, meta: { event: string; actor: string }) => unknown,
    owner: string,
    options?: { timeoutMs?: number; guarded?: boolean },
  ): Promise<Disposable>
}

/**
 * A plugin imported into a CLI process for its commands or menu items (never loaded: no onLoad, no
 * hooks). Its instance is a PluginBase and its `api` the plugin's `this.api`, the plugin SDK's
 * types: the CLI only hands them on, and the SDK's door (cli.ts) names them.
 */
export interface HostedPlugin {
  readonly name: string
  readonly instance: { readonly version: string }
  readonly api: unknown
}

/** The enabled plugins' CLI contributions, current; `unwritten` says why the cache could not be saved. */
export interface CurrentContributions {
  readonly entries: readonly CliContribution[]
  readonly unwritten?: string
}

/**
 * What the plugins service runs in a CLI process: a plugin's commands and menu items run there
 * (never in the manager), with `this.api` over the CLI's session. The CLI's composition root
 * (cli.ts) hands it to the CLI; the CLI does not import it.
 */
export interface CliPluginRuntime {
  /** Imports one plugin here and makes its instance, with a `this.api` acting as `plugin:<name>`. */
  host(entry: CliContribution, session: CliHostSession): Promise<HostedPlugin>
  /**
   * The cache the plugins service writes (<data dir>/cache/cli.json), each entry current: one
   * whose plugin changed since (or that another `version` wrote) is described again by importing
   * it here; one that no longer imports keeps its command ids and gets the import error.
   */
  current(dataDir: string, version: string, session: () => CliHostSession): Promise<CurrentContributions>
  /** Throws SM_ERR_CLI_COMMAND_CONFLICT when `entry` claims a built-in's or an accepted plugin's command or topic. */
  checkConflicts(
    entry: CliContribution,
    builtin: { commands: ReadonlySet<string>; topics: ReadonlySet<string> },
    accepted: readonly CliContribution[],
  ): void
  /** The command class a hosted plugin's getCliCommands() returns under `id`. */
  commandClass(hosted: HostedPlugin, id: string): CommandClass | undefined
  /** What a hosted plugin's getCliMenuItems() returns (`[]` when it has none). */
  menuItems(hosted: HostedPlugin): unknown[]
  /**
   * Runs a plugin's command or menu item here within `limits`: past its deadline it rejects with
   * `timedOut()`; code that holds the event loop past it (or past `blockedMs`) ends the process
   * with that error on stderr.
   */
  guard<T>(timedOut: () => SmError, limits: CliLimits, run: () => Promise<T>): Promise<T>
}

/** Where a plugin was found. */
/**
 * How long plugin code may hold the event loop before its process is ended (a hook in the
 * manager, by the loop watchdog; a menu item in the CLI): plugins.hook_timeout_ms and as long
 * again, at least 2 s more (the watcher counts any hold of the loop, a loaded machine's too) and
 * at most 5 s more. A short hook timeout, an admin's wish for a quick recovery, keeps the wait
 * short too: 15 s at the default 10 s, 4 s at 2 s, never under 2 s.
 */
export const loopLimitMs = (hookTimeoutMs: number): number =>
  hookTimeoutMs + Math.min(Math.max(hookTimeoutMs, 2_000), 5_000)

const pluginSource = z.enum(['user', 'default', 'example'])
export type PluginSource = z.output<typeof pluginSource>

/**
 * What a plugin is in the registry: `disabled` (found, not enabled), `loaded` (enabled and
 * running), `failed` (enabled but broke while loading), `invalid` (cannot be loaded at all:
 * no version, a syntax error, ...), `missing` (known but gone from disk; its enabled flag is
 * kept for when it comes back).
 */
const pluginState = z.enum(['disabled', 'loaded', 'failed', 'invalid', 'missing'])
export type PluginState = z.output<typeof pluginState>

const pluginError = z.object({ code: z.string(), message: z.string() })
export type PluginError = Readonly<z.output<typeof pluginError>>

/** What the loop watchdog saw when it ended a process for a plugin. */
const blockedLoop = z.object({
  /** The hook (or event) the plugin last entered. */
  hook: z.string(),
  /** How long the event loop had been blocked. */
  ms: z.number(),
  /** When the process was ended (ISO time). */
  at: z.string(),
})
export type BlockedLoop = Readonly<z.output<typeof blockedLoop>>

/** One entry of the registry (plugins.json and `plugin list`). */
const pluginRecord = z.object({
  name: z.string(),
  enabled: z.boolean(),
  version: z.string(),
  author: z.string(),
  description: z.string(),
  source: pluginSource,
  path: z.string(),
  state: pluginState,
  error: pluginError.optional(),
  /** Hook and listener failures (throws and timeouts) counted while the plugin ran. */
  hookFailures: z.number(),
  lastHookError: pluginError.extend({ event: z.string() }).readonly().optional(),
  /**
   * Set when the loop watchdog ended a process for this plugin: it stays out (state `failed`)
   * until an admin enables it or reloads the plugins, whatever runs first.
   */
  blocked: blockedLoop.optional(),
})
export type PluginRecord = Readonly<z.output<typeof pluginRecord>>

/** What `sendEvent` and the trigger endpoint answer: who got the event. */
const deliveryReport = z.object({
  event: z.string(),
  /** Listeners registered for the event. */
  listeners: z.number(),
  /** Listeners that ran and returned. */
  delivered: z.number(),
  /** True when the event was already being dispatched in this causal chain, so it was not delivered again. */
  skipped: z.boolean(),
  failed: z.array(z.object({ plugin: z.string(), error: z.string() }).readonly()).readonly(),
})
export type DeliveryReport = Readonly<z.output<typeof deliveryReport>>

/** Metadata of a custom event's delivery, the listener's second argument. */
export interface CustomEventMeta {
  readonly event: string
  /** The sending plugin's name, or `external_api_trigger` when it came from outside (HTTP, CLI, an embedding program). */
  readonly sender: string
}

const reloadReport = z.object({ loaded: z.array(z.string()), failed: z.array(z.string()), ms: z.number() })
export type ReloadReport = Readonly<z.output<typeof reloadReport>>

const actionResult = z.looseObject({
  status: z.enum(['success', 'error', 'cancelled']),
  message: z.string().optional(),
})

// The payload's rules (a plain JSON object, at most 1 MiB) are the custom events' own, checked
// where it is sent with their own codes (SM_ERR_PLUGIN_INVALID_PAYLOAD says which field is wrong).
const customEvent = z.object({ event: z.string(), payload: z.unknown().optional() })

export const pluginsEvents = defineEvents(
  'plugins',
  {
    /** A plugin was found, or its metadata changed. */
    'plugins:discovered': z.object({
      name: z.string(),
      version: z.string(),
      author: z.string(),
      description: z.string(),
      source: pluginSource,
      path: z.string(),
      hash: z.string(),
      enabledByDefault: z.boolean(),
      /** What its class requires and declares secret, so an unchanged plugin is planned without importing it again (absent in older logs). */
      requires: z.array(z.string()).optional(),
      secretSettings: z.union([z.array(z.string()), z.literal(false)]).optional(),
      /** The methods named like a hook that its class defines: which actions a command must load it for (absent in older logs). */
      methods: z.array(z.string()).optional(),
    }),
    'plugins:loaded': z.object({ name: z.string(), version: z.string() }),
    /** `invalid`: the plugin cannot be loaded at all (no version, a syntax error, ...). */
    'plugins:failed': z.object({ name: z.string(), invalid: z.boolean(), error: pluginError }),
    'plugins:missing': z.object({ name: z.string() }),
    /** The loop watchdog ended a process for this plugin: it stays out until enabled or reloaded. */
    'plugins:blocked': blockedLoop.extend({ name: z.string(), error: pluginError }),
    /** An explicit reload lets a blocked plugin load again (an enable does so through after_set_plugin_status). */
    'plugins:unblocked': z.object({ name: z.string() }),
    /** Hook or listener failures of a running plugin (throttled: `count` since the last such fact). */
    'plugins:hook_failed': z.object({ name: z.string(), event: z.string(), count: z.number(), error: pluginError }),
    /** Plugins were reloaded on request; other running managers reload too. `origin` names the manager that did it. */
    'plugins:reloaded': z.object({
      origin: z.string(),
      loaded: z.array(z.string()).readonly(),
      failed: z.array(z.string()).readonly(),
    }),
    /** A custom event triggered from outside (CLI, HTTP), with who received it. */
    'plugins:event_triggered': z.object({
      event: z.string(),
      payload: z.record(z.string(), z.unknown()),
      report: deliveryReport,
    }),
  },
  {
    'plugins:discovered': 'plugin_discovered', // formerly
    'plugins:loaded': 'plugin_loaded', // formerly
    'plugins:failed': 'plugin_failed', // formerly
    'plugins:missing': 'plugin_missing', // formerly
    'plugins:blocked': 'plugin_blocked', // formerly
    'plugins:unblocked': 'plugin_unblocked', // formerly
    'plugins:hook_failed': 'plugin_hook_failed', // formerly
    'plugins:reloaded': 'plugins_reloaded', // formerly
    'plugins:event_triggered': 'custom_event_triggered', // formerly
  },
)

export const pluginsCommands = defineCommands('plugins', {
  'plugins:list': command(empty, z.array(pluginRecord)),
  'plugins:info': command(
    z.object({ name: z.string() }),
    pluginRecord.extend({ hooks: z.array(z.string()), listeners: z.number() }),
    {
      http: {
        method: 'get',
        path: '/plugins/:name',
        name: 'plugin_info',
        summary: 'One plugin: its record, hooks and listeners',
        tags: ['Plugin Management'],
        access: 'admin',
        key: 'plugin',
        response: 'PluginInfo',
        errors: { 404: 'No plugin of that name.' },
      },
    },
  ),
  /** Enables or disables a plugin (the set_plugin_status action) and loads or unloads it at once. */
  'plugins:set_enabled': command(z.object({ name: z.string(), enabled: z.boolean() }), actionResult),
  'plugins:reload': command(empty, reloadReport, {
    http: {
      method: 'put',
      path: '/plugins/reload',
      name: 'reload_plugins',
      summary: 'Reload every plugin from disk',
      tags: ['Plugin Management'],
      access: 'admin',
      message: 'Plugins have been reloaded successfully.',
      key: 'details',
      response: 'PluginsReloaded',
    },
  }),
  /** Sends a custom event as the caller (a plugin's command in a CLI process sends as `plugin:<name>`). */
  'plugins:send_event': command(customEvent, deliveryReport),
  /** Triggers a custom event from outside (CLI, HTTP) as `external_api_trigger`. */
  'plugins:trigger_event': command(customEvent, deliveryReport, {
    http: {
      method: 'post',
      path: '/plugins/trigger_event',
      name: 'trigger_event',
      summary: 'Trigger a custom plugin event (listeners get sender external_api_trigger)',
      tags: ['Plugin Management'],
      access: 'admin',
      input: z.object({
        event_name: z.string().min(1, 'Event name is required to trigger a custom plugin event.').max(200),
        payload: z
          .record(z.string(), z.unknown())
          .nullable()
          .optional()
          .transform((payload) => payload ?? {}),
      }),
      rename: { event_name: 'event' },
      message: "Event '{event}' triggered.",
      key: 'details',
      response: 'EventTriggered',
    },
  }),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof pluginsEvents> {}

  interface CommandMap extends CommandsOf<typeof pluginsCommands> {}
}
