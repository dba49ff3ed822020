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
    try {
      await this.api.backupWorld(serverName)
      this.logger.info(`Backed up '${serverName}' before its start.`)
    } catch (error) {
      // Every failure is a coded error; it is logged and the start goes on.
      const { code, message } = error as { code?: string; message?: string }
      this.logger.warn(`The backup of '${serverName}' before its start failed: ${code}: ${message}`)
    }
  }
}
