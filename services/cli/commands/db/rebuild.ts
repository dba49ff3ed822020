import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class DbRebuild extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Rebuild every projection (settings, ...) by replaying the event log'
  static override examples = ['<%= config.bin %> db rebuild', '<%= config.bin %> db rebuild --json']
  static override description = 'Runs in one transaction: on any failure the current state is kept.'
  static override flags = { json: Flags.boolean({ description: 'print the result as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(DbRebuild)
    const result = await this.request('events:rebuild', {})
    if (flags.json) return this.printJson(result)
    const from = result.fromSnapshot ? ` from the snapshot at #${result.fromSnapshot}` : ''
    this.log(
      `Rebuilt ${result.projections.join(', ')}: replayed ${result.replayed} events${from} in ${result.ms.toFixed(0)} ms.`,
    )
  }
}
