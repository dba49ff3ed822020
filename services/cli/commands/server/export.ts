import { resolve } from 'node:path'
import { Args } from '@oclif/core'
import { ManagerCommand } from '../../manager-command'

export default class ServerExport extends ManagerCommand {
  static override summary = "Export a server's world to a .mcworld file"
  static override description =
    'A running bedrock server is exported hot (save hold/query/resume). The file must not exist yet.'
  static override examples = ['<%= config.bin %> server export survival ~/survival.mcworld']
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    file: Args.string({ description: 'the file to write', required: true }),
  }

  async run(): Promise<void> {
    const { args } = await this.parse(ServerExport)
    const reply = await this.withBackupProgress(args.name, () =>
      this.request('servers:export', { name: args.name, file: resolve(args.file) }),
    )
    this.log(`Exported the world of '${args.name}' to ${reply.file}.`)
  }
}
