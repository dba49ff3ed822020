import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class ServerPrune extends ManagerCommand {
  static override summary = 'Delete backups beyond the retention (retention.backups per kind, retention.backup_days)'
  static override examples = [
    '<%= config.bin %> server prune survival',
    '<%= config.bin %> server prune survival --keep 1',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = { keep: Flags.integer({ description: 'keep only this many of each kind', min: 1 }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerPrune)
    const { pruned } = await this.request('servers:prune', { name: args.name, keep: flags.keep })
    this.log(pruned.length ? `Removed ${pruned.join(', ')}.` : 'Nothing to remove.')
  }
}
