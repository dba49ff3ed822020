import * as Flags from '@oclif/core/flags'
import { withoutServerSecrets } from '../../../../lib/server-secrets'
import { table } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerList extends ManagerCommand {
  protected override loadsPlugins = false
  protected override services = ['servers'] as const
  static override summary = 'List the registered servers with their status'
  static override description =
    "PLAYERS is how many are online, shown while a manager runs and knows it for some server ('-' for the others; 'server players' asks a game itself). HOST is the host agent a server lives on ('-': this machine), shown when some server lives on one; a server whose host is offline is 'unknown', with since when."

  static override examples = ['<%= config.bin %> server list', '<%= config.bin %> server list --json']
  static override flags = { json: Flags.boolean({ description: 'print the servers as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerList)
    const servers = await this.request('servers:list', {})
    // A list never holds an environment's values or secret-looking arguments: 'server info' shows one server whole.
    if (flags.json) return this.printJson(withoutServerSecrets(servers))
    if (servers.length === 0)
      return this.log(`No servers yet. Add one with: ${this.config.bin} server add <name> --dir <path>`)
    // PLAYERS only when a manager knows someone's count: without one the column would be all '-'.
    const counts = servers.some((s) => s.players !== undefined)
    // HOST only when some server lives on a host agent.
    const hosts = servers.some((s) => s.host !== undefined)
    const rows = servers.map((s) => [
      s.name,
      ...(hosts ? [s.host ?? '-'] : []),
      s.profile,
      s.status === 'unknown' && s.since ? `unknown (host offline since ${s.since})` : s.status,
      s.pid ? String(s.pid) : '-',
      ...(counts ? [s.players === undefined ? '-' : String(s.players)] : []),
      s.dir,
    ])
    const header = [
      'NAME',
      ...(hosts ? ['HOST'] : []),
      'PROFILE',
      'STATUS',
      'PID',
      ...(counts ? ['PLAYERS'] : []),
      'DIRECTORY',
    ]
    for (const line of table(header, rows)) this.log(line)
  }
}
