import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { formatSize, table } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerBackups extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "List a server's backups, newest first"
  static override examples = [
    '<%= config.bin %> server backups survival',
    '<%= config.bin %> server backups survival --json',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print them as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerBackups)
    const list = await this.request('servers:backups', { name: args.name })
    if (flags.json) return this.printJson(list)
    if (list.length === 0)
      return this.log(`No backups of '${args.name}' yet. Take one with: ${this.config.bin} server backup ${args.name}`)
    const rows = list.map((b) => [b.file, b.kind, formatSize(b.bytes), b.createdAt])
    for (const line of table(['FILE', 'KIND', 'SIZE', 'CREATED'], rows, [2])) this.log(line)
  }
}
