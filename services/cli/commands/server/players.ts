import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { formatOnline, formatUptime, shortTime, table } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerPlayers extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Show who is online on a running server, or everyone who played on it (--history)'
  static override description =
    "Asks the game now with its profile's list command (bedrock and java: list) and prints the count and the names. It works with or without a manager; the command is read-only, so it is not a command_send action (no hook, no fact). A generic server cannot tell: SM_ERR_SERVER_PLAYERS_UNKNOWN. While a manager runs, 'server status' also shows who is online as the manager followed it (joins and leaves are the player_join and player_leave facts).\n\nWith --history, prints every player the manager saw join the server (from those facts, also when the server is stopped): their last known id (Bedrock xuid, Java UUID), when they were first and last seen, how many times they joined, how long they played, and who is online now."
  static override examples = [
    '<%= config.bin %> server players survival',
    '<%= config.bin %> server players survival --json',
    '<%= config.bin %> server players survival --history',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    history: Flags.boolean({ description: 'everyone who played on it, from the join and leave facts' }),
    json: Flags.boolean({ description: 'print { online, max, names } (with --history: the players) as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerPlayers)
    if (flags.history) return this.#history(args.name, flags.json)
    const list = await this.request('servers:players', { name: args.name })
    if (flags.json) return this.printJson(list)
    this.log(`${args.name}: ${formatOnline(list)} online`)
    for (const name of list.names) this.log(`  ${name}`)
  }

  async #history(name: string, json: boolean): Promise<void> {
    const players = await this.request('servers:player_history', { name })
    if (json) return this.printJson(players)
    if (players.length === 0)
      return this.log(`Nobody has joined '${name}' while a manager ran (server-manager start follows joins).`)
    const rows = players.map((p) => [
      p.name,
      p.id ?? '-',
      p.online ? 'yes' : 'no',
      String(p.joins),
      formatUptime(p.playedMs),
      shortTime(p.firstSeen),
      shortTime(p.lastSeen),
    ])
    for (const line of table(['NAME', 'ID', 'ONLINE', 'JOINS', 'PLAYED', 'FIRST SEEN', 'LAST SEEN'], rows, [3]))
      this.log(line)
  }
}
