import { resolve } from 'node:path'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class ServerExport extends ManagerCommand {
  static override summary = "Export a server's world to an archive (.mcworld for bedrock, .zip otherwise)"
  static override description =
    'A running server is exported as it is backed up: hot where its profile can (bedrock save hold/query/resume, or its --hot-backup commands), else stopped, copied and started again (with a warning). The file must not exist yet; a directory (the working one when none is given) gets <name>.mcworld or <name>.zip.'
  static override examples = [
    '<%= config.bin %> server export survival ~/survival.mcworld',
    '<%= config.bin %> server export lobby ~/exports/',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    file: Args.string({ description: 'the file to write, or a directory for it', default: '.' }),
  }
  static override flags = {
    stop: Flags.boolean({ description: 'stop the server for the export and start it again (no hot copy)' }),
    json: Flags.boolean({ description: 'print the result as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerExport)
    const reply = await this.withBackupProgress(args.name, () =>
      this.request('servers:export', {
        name: args.name,
        file: resolve(args.file),
        stopStart: flags.stop ? true : undefined,
      }),
    )
    if (flags.json) return this.printJson(reply)
    this.log(`Exported the world of '${args.name}' to ${reply.file} (${reply.method}).`)
  }
}
