import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class ServerDeleteBackup extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Delete one backup of a server'
  static override description =
    "FILE is a name 'server backups NAME' lists (never a path). Refused while a backup, restore or export of the server runs. Recorded as a servers:backup_deleted fact."
  static override examples = ['<%= config.bin %> server delete-backup survival world_20250101-120000-000.mcworld']
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    file: Args.string({ description: 'the backup, as server backups lists it', required: true }),
  }

  async run(): Promise<void> {
    const { args } = await this.parse(ServerDeleteBackup)
    const { deleted } = await this.request('servers:delete_backup', { name: args.name, file: args.file })
    this.log(`Deleted ${deleted} of '${args.name}'.`)
  }
}
