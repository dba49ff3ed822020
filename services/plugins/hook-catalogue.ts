import type { ActionResult } from '../../kernel'

/**
 * The standard events plugins can hook, their payloads, and the fields that identify one
 * occurrence (for the re-entrancy guard). Each `<x>` is emitted as `before_<x>` (payload) and
 * `after_<x>` (payload + `result`); a hook method is the camelCase of the event name.
 */
export interface ActionPayloads {
  server_start: { readonly serverName: string; readonly mode: 'detached' | 'direct' }
  server_stop: { readonly serverName: string }
  command_send: { readonly serverName: string; readonly command: string }
  server_status_change: { readonly serverName: string; readonly status: string; readonly previousStatus: string }
  server_crash: { readonly serverName: string; readonly exitCode: number | null; readonly signal: string | null }
  backup: { readonly serverName: string; readonly backupType: 'world' | 'config' | 'all' }
  restore: { readonly serverName: string; readonly restoreType: 'world' | 'config' | 'all'; readonly file: string }
  prune_backups: { readonly serverName: string }
  server_install: { readonly serverName: string; readonly source: string }
  delete_server_data: { readonly serverName: string }
  properties_change: { readonly serverName: string; readonly properties: Readonly<Record<string, string>> }
  world_export: { readonly serverName: string; readonly file: string }
  world_import: { readonly serverName: string; readonly file: string }
  setting_update: { readonly key: string; readonly value: unknown; readonly previous?: unknown }
  set_plugin_status: { readonly pluginName: string; readonly enabled: boolean }
}

export type ActionName = keyof ActionPayloads

/** Which payload fields identify an occurrence: `before_server_start|s1` differs from `…|s2`. */
export const IDENTITY_KEYS: { readonly [A in ActionName]: readonly (keyof ActionPayloads[A] & string)[] } = {
  server_start: ['serverName'],
  server_stop: ['serverName'],
  command_send: ['serverName', 'command'],
  server_status_change: ['serverName', 'status'],
  server_crash: ['serverName'],
  backup: ['serverName', 'backupType'],
  restore: ['serverName', 'restoreType'],
  prune_backups: ['serverName'],
  server_install: ['serverName'],
  delete_server_data: ['serverName'],
  properties_change: ['serverName'],
  world_export: ['serverName'],
  world_import: ['serverName'],
  setting_update: ['key'],
  set_plugin_status: ['pluginName'],
}

export const ACTION_NAMES = Object.keys(IDENTITY_KEYS) as ActionName[]

/** Every standard hook event name, `before_*` and `after_*`. */
export const STANDARD_EVENTS: readonly string[] = ACTION_NAMES.flatMap((a) => [`before_${a}`, `after_${a}`])

/** `after_server_start` → `afterServerStart`. */
export function hookMethodName(event: string): string {
  return event.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
}

/** Method names that map to another event (the seed's misnamed hook). */
export const HOOK_ALIASES: Readonly<Record<string, string>> = { beforeStartServer: 'before_server_start' }

/** The payload a `before_<x>` hook receives. */
export type BeforePayload<A extends ActionName> = ActionPayloads[A]
/** The payload an `after_<x>` hook receives. */
export type AfterPayload<A extends ActionName> = ActionPayloads[A] & { readonly result: ActionResult }

/** What a `before_*` hook may return: nothing to let the action go on, or a veto. */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing is declared as returning void
export type BeforeHookResult = void | undefined | { readonly cancel: true; readonly reason?: string }

declare module '../../kernel/maps' {
  interface EventMap {
    before_server_start: BeforePayload<'server_start'>
    after_server_start: AfterPayload<'server_start'>
    before_server_stop: BeforePayload<'server_stop'>
    after_server_stop: AfterPayload<'server_stop'>
    before_command_send: BeforePayload<'command_send'>
    after_command_send: AfterPayload<'command_send'>
    before_server_status_change: BeforePayload<'server_status_change'>
    after_server_status_change: AfterPayload<'server_status_change'>
    before_server_crash: BeforePayload<'server_crash'>
    after_server_crash: AfterPayload<'server_crash'>
    before_backup: BeforePayload<'backup'>
    after_backup: AfterPayload<'backup'>
    before_restore: BeforePayload<'restore'>
    after_restore: AfterPayload<'restore'>
    before_prune_backups: BeforePayload<'prune_backups'>
    after_prune_backups: AfterPayload<'prune_backups'>
    before_server_install: BeforePayload<'server_install'>
    after_server_install: AfterPayload<'server_install'>
    before_delete_server_data: BeforePayload<'delete_server_data'>
    after_delete_server_data: AfterPayload<'delete_server_data'>
    before_properties_change: BeforePayload<'properties_change'>
    after_properties_change: AfterPayload<'properties_change'>
    before_world_export: BeforePayload<'world_export'>
    after_world_export: AfterPayload<'world_export'>
    before_world_import: BeforePayload<'world_import'>
    after_world_import: AfterPayload<'world_import'>
    before_set_plugin_status: BeforePayload<'set_plugin_status'>
    after_set_plugin_status: AfterPayload<'set_plugin_status'>
  }
}
