import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class ServerKill extends ManagerCommand {
  static override summary = 'End a server at once with SIGKILL (no save; bypasses a stop in progress)'
  static override examples = ['<%= config.bin %> server kill survival']
  static override args = { name: Args.string({ description: 'the server name', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(ServerKill)
    await this.request('servers:kill', { name: args.name })
    this.log(`Server '${args.name}' killed.`)
  }
}
