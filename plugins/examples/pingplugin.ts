import { type AfterPayload, PluginBase } from 'server-manager'

/** Sends the custom event `pingplugin:ping` every time a server starts successfully. */
export default class PingPlugin extends PluginBase<PingPlugin> {
  static version = '1.1.0'

  override async afterServerStart({ serverName, result }: AfterPayload<'server_start'>) {
    if (result.status !== 'success') return
    const report = await this.api.sendEvent('pingplugin:ping', {
      serverName,
      message: `${serverName} is up`,
      timestamp: new Date().toISOString(),
    })
    this.logger.info(`ping delivered to ${report.delivered} of ${report.listeners} listeners`)
  }
}
