import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class DbPrune extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Apply the event-log retention now (settings events.retention_days and events.max_events)'
  static override examples = ['<%= config.bin %> db prune', '<%= config.bin %> db prune --json']
  static override description =
    'Writes a snapshot of every projection first, so state and `db rebuild` are unaffected; only history is deleted.'
  static override flags = { json: Flags.boolean({ description: 'print the result as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(DbPrune)
    const result = await this.request('events:apply_retention', {})
    if (flags.json) return this.printJson(result)
    this.log(
      result.deleted ? `Deleted ${result.deleted} events (snapshot at #${result.snapshotSeq}).` : 'Nothing to prune.',
    )
  }
}
