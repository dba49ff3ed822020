import { type AfterPayload, PluginBase } from 'server-manager'

/**
 * Welcomes each player who joins a server (`say` on its console: bedrock and java) and logs
 * who left and why: `left`, or the game stopped or crashed with them online.
 */
export default class Welcome extends PluginBase<Welcome> {
  static version = '1.0.0'

  async afterPlayerJoin({ serverName, name }: AfterPayload<'player_join'>) {
    await this.api.sendCommand(serverName, `say Welcome, ${name}!`)
  }

  afterPlayerLeave({ serverName, name, reason }: AfterPayload<'player_leave'>) {
    this.logger.info(`${name} left ${serverName} (${reason})`)
  }
}
