import { type AfterPayload, PluginBase } from 'server-manager'

/**
 * Sends the custom event `pingplugin:ping` each time a server has started, and each time the
 * setting `custom.ping` changes successfully.
 */
export default class PingPlugin extends PluginBase<PingPlugin> {
  static version = '1.2.0'

  async afterServerStart({ serverName, result }: AfterPayload<'server_start'>) {
    if (result.status !== 'success') return
    const report = await this.api.sendEvent('pingplugin:ping', {
      serverName,
      message: `ping: ${serverName} is up`,
      timestamp: new Date().toISOString(),
    })
    this.logger.info(`ping for ${serverName} delivered to ${report.delivered} of ${report.listeners} listeners`)
  }

  async afterSettingUpdate({ key, value, result }: AfterPayload<'setting_update'>) {
    if (key !== 'custom.ping' || result.status !== 'success') return
    const report = await this.api.sendEvent('pingplugin:ping', {
      value,
      message: `ping ${JSON.stringify(value)}`,
      timestamp: new Date().toISOString(),
    })
    this.logger.info(`ping delivered to ${report.delivered} of ${report.listeners} listeners`)
  }
}
