import { Flags } from '@oclif/core'
import { ManagerCommand } from '../../manager-command'

export default class ServerList extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'List the registered servers with their status'
  static override examples = ['<%= config.bin %> server list', '<%= config.bin %> server list --json']
  static override flags = { json: Flags.boolean({ description: 'print the servers as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerList)
    const servers = await this.request('servers:list', {})
    if (flags.json) return this.printJson(servers)
    if (servers.length === 0)
      return this.log(`No servers yet. Add one with: ${this.config.bin} server add <name> --dir <path>`)
    const rows = servers.map((s) => [s.name, s.profile, s.status, s.pid ? String(s.pid) : '-', s.dir])
    const widths = [4, 7, 6, 3].map((min, i) => Math.max(min, ...rows.map((r) => (r[i] as string).length)))
    const line = (cells: string[]) => cells.map((c, i) => (i < 4 ? c.padEnd(widths[i] as number) : c)).join('  ')
    this.log(line(['NAME', 'PROFILE', 'STATUS', 'PID', 'DIRECTORY']))
    for (const row of rows) this.log(line(row))
  }
}
