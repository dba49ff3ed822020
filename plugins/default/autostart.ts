import { PluginBase } from 'server-manager'

/**
 * Starts every server whose `autostart` setting is true when the manager starts
 * (`server-manager server config <name> autostart true`). Servers already running, for example
 * adopted after a manager restart, are left alone.
 */
export default class Autostart extends PluginBase<Autostart> {
  static version = '1.0.0'
  static enabledByDefault = true

  onManagerStartup() {
    // In the background: a slow server must not hold up the manager's start.
    void this.#startAll()
  }

  async #startAll() {
    for (const server of await this.api.listServers()) {
      if ((await this.api.getServerSetting(server.name, 'autostart')) !== true) continue
      if ((await this.api.getServerRunningStatus(server.name)).running) continue
      const result = await this.api.startServer(server.name)
      if (result.status === 'success') this.logger.info(`Started '${server.name}' (autostart).`)
      else this.logger.warn(`Autostart of '${server.name}' did not happen: ${result.message}`)
    }
  }
}
