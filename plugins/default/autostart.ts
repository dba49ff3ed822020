import { PluginBase } from 'server-manager'

/**
 * Starts every server whose `autostart` setting is true when the manager starts
 * (`server-manager server config <name> autostart true`). Servers already running, for example
 * adopted after a manager restart, are left alone. A server on another host is its host agent's
 * to start, when that agent starts.
 */
export default class Autostart extends PluginBase<Autostart> {
  static version = '1.0.0'
  static enabledByDefault = true
  /** Set once the plugin is unloaded or disabled: the servers not reached yet are left alone. */
  #unloaded = false

  onManagerStartup() {
    // In the background: a slow server must not hold up the manager's start. Nothing it does
    // may end in an unhandled rejection (a full disk, say): each failure is logged with its code.
    void this.#startAll().catch((error) => this.logger.error(`Autostart stopped: ${describe(error)}`))
  }

  onUnload() {
    this.#unloaded = true
  }

  async #startAll() {
    for (const server of await this.api.listServers()) {
      if (this.#unloaded) return
      // A server on another host: its host agent starts it when it starts (hosts load no plugins).
      if (server.host !== undefined) continue
      try {
        await this.#start(server.name)
      } catch (error) {
        // One server's failure does not keep the others from starting. A veto (a plugin's
        // before_server_start said no) was meant: a warning, not an error.
        if (vetoed(error)) this.logger.warn(`Autostart of '${server.name}' did not happen: ${describe(error)}`)
        else this.logger.error(`Autostart of '${server.name}' failed: ${describe(error)}`)
      }
    }
  }

  async #start(name: string) {
    if ((await this.api.getServerSetting(name, 'autostart')) !== true) return
    if ((await this.api.getServerRunningStatus(name)).running) return
    // Rejects with a coded error when it does not start.
    await this.api.startServer(name)
    this.logger.info(`Started '${name}' (autostart).`)
  }
}

/** Whether a hook vetoed the start (its code ends in _CANCELLED: SM_ERR_SERVER_CHANGE_CANCELLED). */
function vetoed(error: unknown): boolean {
  return /_CANCELLED$/.test(String((error as { code?: unknown })?.code))
}

/** An error as the log shows it: its code, when it has one, and its message. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === 'string' ? `${code}: ${message}` : message
}
