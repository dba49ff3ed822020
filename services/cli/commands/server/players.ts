import { Args, Flags } from '@oclif/core'
import { formatOnline } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerPlayers extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Show who is online on a running server'
  static override description =
    "Asks the game now with its profile's list command (bedrock and java: list) and prints the count and the names. It works with or without a manager; the command is read-only, so it is not a command_send action (no hook, no fact). A generic server cannot tell: SM_ERR_SERVER_PLAYERS_UNKNOWN. While a manager runs, 'server status' also shows who is online as the manager followed it (joins and leaves are the player_join and player_leave facts)."
  static override examples = [
    '<%= config.bin %> server players survival',
    '<%= config.bin %> server players survival --json',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print { online, max, names } as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerPlayers)
    const list = await this.request('servers:players', { name: args.name })
    if (flags.json) return this.printJson(list)
    this.log(`${args.name}: ${formatOnline(list)} online`)
    for (const name of list.names) this.log(`  ${name}`)
  }
}
