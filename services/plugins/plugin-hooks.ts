import type { AfterPayload, BeforeHookResult, BeforePayload } from './hook-catalogue'

/**
 * Every standard hook a plugin may implement, one optional method per event. The method name
 * is the camelCase of the event (`after_server_start` → `afterServerStart`); hooks may be async
 * and are awaited under `plugins.hook_timeout_ms`.
 */
export interface PluginHooks {
  /** Before a server is started (mode detached or direct). Return `{ cancel: true, reason }` to stop it. */
  beforeServerStart?(payload: BeforePayload<'server_start'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server is started (mode detached or direct) was attempted; `result.status` is success, error or cancelled. */
  afterServerStart?(payload: AfterPayload<'server_start'>): unknown
  /** Before a server is stopped. Return `{ cancel: true, reason }` to stop it. */
  beforeServerStop?(payload: BeforePayload<'server_stop'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server is stopped was attempted; `result.status` is success, error or cancelled. */
  afterServerStop?(payload: AfterPayload<'server_stop'>): unknown
  /** Before a console command is sent to a server. Return `{ cancel: true, reason }` to stop it. */
  beforeCommandSend?(payload: BeforePayload<'command_send'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a console command is sent to a server was attempted; `result.status` is success, error or cancelled. */
  afterCommandSend?(payload: AfterPayload<'command_send'>): unknown
  /** Before a server's status changes (starting, running, stopping, stopped, error). Return `{ cancel: true, reason }` to stop it. */
  beforeServerStatusChange?(
    payload: BeforePayload<'server_status_change'>,
  ): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server's status changes (starting, running, stopping, stopped, error) was attempted; `result.status` is success, error or cancelled. */
  afterServerStatusChange?(payload: AfterPayload<'server_status_change'>): unknown
  /** Before a server process exits without being asked to. Return `{ cancel: true, reason }` to stop it. */
  beforeServerCrash?(payload: BeforePayload<'server_crash'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server process exits without being asked to was attempted; `result.status` is success, error or cancelled. */
  afterServerCrash?(payload: AfterPayload<'server_crash'>): unknown
  /** Before a backup is made (world, config or all). Return `{ cancel: true, reason }` to stop it. */
  beforeBackup?(payload: BeforePayload<'backup'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a backup is made (world, config or all) was attempted; `result.status` is success, error or cancelled. */
  afterBackup?(payload: AfterPayload<'backup'>): unknown
  /** Before a backup is restored. Return `{ cancel: true, reason }` to stop it. */
  beforeRestore?(payload: BeforePayload<'restore'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a backup is restored was attempted; `result.status` is success, error or cancelled. */
  afterRestore?(payload: AfterPayload<'restore'>): unknown
  /** Before a server's old backups are pruned. Return `{ cancel: true, reason }` to stop it. */
  beforePruneBackups?(payload: BeforePayload<'prune_backups'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server's old backups are pruned was attempted; `result.status` is success, error or cancelled. */
  afterPruneBackups?(payload: AfterPayload<'prune_backups'>): unknown
  /** Before a server is installed or updated. Return `{ cancel: true, reason }` to stop it. */
  beforeServerInstall?(payload: BeforePayload<'server_install'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server is installed or updated was attempted; `result.status` is success, error or cancelled. */
  afterServerInstall?(payload: AfterPayload<'server_install'>): unknown
  /** Before a server's data is deleted. Return `{ cancel: true, reason }` to stop it. */
  beforeDeleteServerData?(payload: BeforePayload<'delete_server_data'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server's data is deleted was attempted; `result.status` is success, error or cancelled. */
  afterDeleteServerData?(payload: AfterPayload<'delete_server_data'>): unknown
  /** Before a server's server.properties change. Return `{ cancel: true, reason }` to stop it. */
  beforePropertiesChange?(payload: BeforePayload<'properties_change'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a server's server.properties change was attempted; `result.status` is success, error or cancelled. */
  afterPropertiesChange?(payload: AfterPayload<'properties_change'>): unknown
  /** Before a world is exported. Return `{ cancel: true, reason }` to stop it. */
  beforeWorldExport?(payload: BeforePayload<'world_export'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a world is exported was attempted; `result.status` is success, error or cancelled. */
  afterWorldExport?(payload: AfterPayload<'world_export'>): unknown
  /** Before a world is imported. Return `{ cancel: true, reason }` to stop it. */
  beforeWorldImport?(payload: BeforePayload<'world_import'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a world is imported was attempted; `result.status` is success, error or cancelled. */
  afterWorldImport?(payload: AfterPayload<'world_import'>): unknown
  /** Before a global setting changes. Return `{ cancel: true, reason }` to stop it. */
  beforeSettingUpdate?(payload: BeforePayload<'setting_update'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a global setting changes was attempted; `result.status` is success, error or cancelled. */
  afterSettingUpdate?(payload: AfterPayload<'setting_update'>): unknown
  /** Before a plugin is enabled or disabled. Return `{ cancel: true, reason }` to stop it. */
  beforeSetPluginStatus?(payload: BeforePayload<'set_plugin_status'>): BeforeHookResult | Promise<BeforeHookResult>
  /** After a plugin is enabled or disabled was attempted; `result.status` is success, error or cancelled. */
  afterSetPluginStatus?(payload: AfterPayload<'set_plugin_status'>): unknown
}
