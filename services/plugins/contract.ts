import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'

/** What the plugins service runs in a CLI process (a plugin's commands and menu items), for the CLI's composition root to hand over. */
export type { CliContribution, CommandClass } from './cli-contributions'
export type { CliHostSession, CliPluginRuntime, CurrentContributions, HostedPlugin } from './cli-runtime'

/** Where a plugin was found. */
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
  'plugins:reload': command(empty, reloadReport),
  /** Sends a custom event as the caller (a plugin's command in a CLI process sends as `plugin:<name>`). */
  'plugins:send_event': command(customEvent, deliveryReport),
  /** Triggers a custom event from outside (CLI, HTTP) as `external_api_trigger`. */
  'plugins:trigger_event': command(customEvent, deliveryReport),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof pluginsEvents> {}

  interface CommandMap extends CommandsOf<typeof pluginsCommands> {}
}
