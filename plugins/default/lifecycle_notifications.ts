import { type BeforePayload, PluginBase } from 'server-manager'

const DEFAULT_DELAY_S = 5
const DELAY = 'custom.lifecycle_notifications.delay_s'

/**
 * Warns the players of a server before it stops or restarts, with its game's own say command
 * (the profile's `sayCommand`, `{message}` replaced: `say ...` on Bedrock and Java, what a
 * generic server was given with `--say-command`), and gives them `delay_s` seconds to finish:
 * the server's `custom.lifecycle_notifications.delay_s`, else the global one, else 5.
 *
 * It sends a game only the commands its profile names. A game with no say command is neither
 * warned nor delayed. One whose profile can list who is online (`players`) is asked first, and
 * stops at once when nobody is; one that cannot tell (no players protocol, or no count in the
 * reply) is warned and waited for anyway: a warning to an empty server costs a few seconds, a
 * stop without one kicks players without notice. Keep the delay below
 * `plugins.hook_timeout_ms`, which bounds every hook.
 */
export default class LifecycleNotifications extends PluginBase<LifecycleNotifications> {
  static version = '1.2.1'
  static enabledByDefault = true

  async beforeServerStop({ serverName, reason }: BeforePayload<'server_stop'>) {
    if (reason === 'kill') return
    const profile = await this.api.getServerProfile(serverName)
    if (!profile.sayCommand) return
    if ((await this.#online(serverName)) === 0) return
    const delay = await this.#delay(serverName)
    const what = reason === 'restart' || reason === 'schedule' ? 'restarting' : 'stopping'
    const message = `Server ${what} in ${delay} second${delay === 1 ? '' : 's'}.`
    // Nobody was warned when it rejects (the console or the game refused it): waiting would only delay the stop.
    const said = await this.api.sendCommand(serverName, profile.sayCommand.replaceAll('{message}', message)).then(
      () => true,
      () => false,
    )
    if (!said) return
    await new Promise((resolve) => setTimeout(resolve, delay * 1000))
  }

  /**
   * How many players are online, or undefined when the game cannot tell (its profile has no
   * players protocol, or its reply was not a list): asked as a read, no command in the log.
   */
  async #online(serverName: string): Promise<number | undefined> {
    try {
      return (await this.api.listPlayers(serverName)).online
    } catch {
      return undefined
    }
  }

  async #delay(serverName: string): Promise<number> {
    for (const configured of [
      await this.api.getServerSetting(serverName, DELAY),
      await this.api.getGlobalSetting(DELAY),
    ])
      if (typeof configured === 'number' && configured >= 0) return configured
    return DEFAULT_DELAY_S
  }
}
