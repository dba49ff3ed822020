import type { ActionResult } from '../../kernel'

/** Where a plugin was found. */
export type PluginSource = 'user' | 'default' | 'example'

/**
 * What a plugin is in the registry: `disabled` (found, not enabled), `loaded` (enabled and
 * running), `failed` (enabled but broke while loading), `invalid` (cannot be loaded at all:
 * no version, a syntax error, ...), `missing` (known but gone from disk; its enabled flag is
 * kept for when it comes back).
 */
export type PluginState = 'disabled' | 'loaded' | 'failed' | 'invalid' | 'missing'

export interface PluginError {
  readonly code: string
  readonly message: string
}

/** One entry of the registry (plugins.json and `plugin list`). */
export interface PluginRecord {
  readonly name: string
  readonly enabled: boolean
  readonly version: string
  readonly author: string
  readonly description: string
  readonly source: PluginSource
  readonly path: string
  readonly state: PluginState
  readonly error?: PluginError
  /** Hook and listener failures (throws and timeouts) counted while the plugin ran. */
  readonly hookFailures: number
  readonly lastHookError?: PluginError & { readonly event: string }
  /**
   * Set when the loop watchdog ended a process for this plugin: it stays out (state `failed`)
   * until an admin enables it or reloads the plugins, whatever runs first.
   */
  readonly blocked?: BlockedLoop
}

/** What the loop watchdog saw when it ended a process for a plugin. */
export interface BlockedLoop {
  /** The hook (or event) the plugin last entered. */
  readonly hook: string
  /** How long the event loop had been blocked. */
  readonly ms: number
  /** When the process was ended (ISO time). */
  readonly at: string
}

/** What `sendEvent` and the trigger endpoint answer: who got the event. */
export interface DeliveryReport {
  readonly event: string
  /** Listeners registered for the event. */
  readonly listeners: number
  /** Listeners that ran and returned. */
  readonly delivered: number
  /** True when the event was already being dispatched in this causal chain, so it was not delivered again. */
  readonly skipped: boolean
  readonly failed: readonly { readonly plugin: string; readonly error: string }[]
}

/** Metadata of a custom event's delivery, the listener's second argument. */
export interface CustomEventMeta {
  readonly event: string
  /** The sending plugin's name, or `external_api_trigger` when it came from outside (HTTP, CLI, an embedding program). */
  readonly sender: string
}

export interface ReloadReport {
  readonly loaded: string[]
  readonly failed: string[]
  readonly ms: number
}

declare module '../../kernel/maps' {
  interface EventMap {
    /** Fired once in a long-running manager after every service started (plugins get `onManagerStartup`). */
    manager_started: Record<string, never>
    /** A plugin was found, or its metadata changed. */
    plugin_discovered: {
      readonly name: string
      readonly version: string
      readonly author: string
      readonly description: string
      readonly source: PluginSource
      readonly path: string
      readonly hash: string
      readonly enabledByDefault: boolean
    }
    plugin_loaded: { readonly name: string; readonly version: string }
    /** `invalid`: the plugin cannot be loaded at all (no version, a syntax error, ...). */
    plugin_failed: { readonly name: string; readonly invalid: boolean; readonly error: PluginError }
    plugin_missing: { readonly name: string }
    /** The loop watchdog ended a process for this plugin: it stays out until enabled or reloaded. */
    plugin_blocked: BlockedLoop & { readonly name: string; readonly error: PluginError }
    /** An explicit reload lets a blocked plugin load again (an enable does so through after_set_plugin_status). */
    plugin_unblocked: { readonly name: string }
    /** Hook or listener failures of a running plugin (throttled: `count` since the last such fact). */
    plugin_hook_failed: {
      readonly name: string
      readonly event: string
      readonly count: number
      readonly error: PluginError
    }
    /** Plugins were reloaded on request; other running managers reload too. `origin` names the manager that did it. */
    plugins_reloaded: {
      readonly origin: string
      readonly loaded: readonly string[]
      readonly failed: readonly string[]
    }
    /** A custom event triggered from outside (CLI, HTTP), with who received it. */
    custom_event_triggered: {
      readonly event: string
      readonly payload: Record<string, unknown>
      readonly report: DeliveryReport
    }
  }

  interface CommandMap {
    'plugins:list': { payload: Record<string, never>; reply: PluginRecord[] }
    'plugins:info': {
      payload: { name: string }
      reply: PluginRecord & { readonly hooks: string[]; readonly listeners: number }
    }
    /** Enables or disables a plugin (the set_plugin_status action) and loads or unloads it at once. */
    'plugins:set_enabled': { payload: { name: string; enabled: boolean }; reply: ActionResult }
    'plugins:reload': { payload: Record<string, never>; reply: ReloadReport }
    /** Sends a custom event as the caller (a plugin's command in a CLI process sends as `plugin:<name>`). */
    'plugins:send_event': { payload: { event: string; payload?: Record<string, unknown> }; reply: DeliveryReport }
    /** Triggers a custom event from outside (CLI, HTTP) as `external_api_trigger`. */
    'plugins:trigger_event': { payload: { event: string; payload?: Record<string, unknown> }; reply: DeliveryReport }
  }
}
