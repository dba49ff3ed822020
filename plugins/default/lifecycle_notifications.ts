import { type BeforePayload, PluginBase } from 'server-manager'

const DEFAULT_DELAY_S = 5

/**
 * Warns the players of a bedrock server before it stops or restarts (`say ...` on its console)
 * and gives them `custom.lifecycle_notifications.delay_s` seconds (default 5) to finish. An empty
 * server (`list` says no one is online) stops at once. Keep the delay below
 * `plugins.hook_timeout_ms`, which bounds every hook.
 */
export default class LifecycleNotifications extends PluginBase<LifecycleNotifications> {
  static version = '1.0.0'
  static enabledByDefault = true

  async beforeServerStop({ serverName, reason }: BeforePayload<'server_stop'>) {
    if (reason === 'kill') return
    const list = await this.api.sendCommand(serverName, 'list')
    const reply = (list.reply as string[] | undefined) ?? []
    const online = reply
      .map((line) => /There are (\d+)\/\d+ players online/.exec(line)?.[1])
      .find((n) => n !== undefined)
    if (list.status !== 'success' || online === undefined || Number(online) === 0) return
    const configured = await this.api.getGlobalSetting('custom.lifecycle_notifications.delay_s')
    const delay = typeof configured === 'number' && configured >= 0 ? configured : DEFAULT_DELAY_S
    const what = reason === 'restart' || reason === 'schedule' ? 'restarting' : 'stopping'
    await this.api.sendCommand(serverName, `say Server ${what} in ${delay} seconds.`)
    await new Promise((resolve) => setTimeout(resolve, delay * 1000))
  }
}
