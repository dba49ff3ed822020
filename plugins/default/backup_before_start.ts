import { type BeforePayload, PluginBase } from 'server-manager'

/**
 * Backs up a server's world before it starts, for every server once enabled
 * (`server-manager plugin enable backup_before_start`). A failed backup is logged and the start
 * goes on; to stop a start on a failed backup, veto in your own plugin. The backup runs inside
 * the hook, so `plugins.hook_timeout_ms` must allow for the world's size.
 */
export default class BackupBeforeStart extends PluginBase<BackupBeforeStart> {
  static version = '1.0.0'

  async beforeServerStart({ serverName }: BeforePayload<'server_start'>) {
    const result = await this.api.backupWorld(serverName)
    if (result.status === 'success') this.logger.info(`Backed up '${serverName}' before its start.`)
    else this.logger.warn(`The backup of '${serverName}' before its start failed: ${result.message}`)
  }
}
