import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class ServerRestore extends ManagerCommand {
  static override summary = 'Put a backup back in place (world or config, from its name)'
  static override description =
    "The backup is checked first (a readable zip, nothing that would land outside the world directory, a world or the server's config files). What is in place now is backed up first (a _pre-restore archive). A running server is refused unless --stop, which stops it, restores and starts it again."
  static override examples = [
    '<%= config.bin %> server restore survival world_20261122-101500-000.mcworld',
    '<%= config.bin %> server restore survival config_20261122-101500-000.zip --stop',
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    file: Args.string({ description: "the backup's name, from 'server backups'", required: true }),
  }
  static override flags = {
    stop: Flags.boolean({ description: 'stop the running server for the restore, then start it again' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerRestore)
    const reply = await this.withBackupProgress(args.name, () =>
      this.request('servers:restore', { name: args.name, file: args.file, stopStart: flags.stop }),
    )
    this.log(`Restored ${reply.restored} into '${args.name}'; what was there before is in ${reply.safety}.`)
  }
}
