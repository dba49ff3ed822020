import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class DbCheck extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "Check the database's integrity and that every projection equals a replay of the log"
  static override examples = ['<%= config.bin %> db check', '<%= config.bin %> db check --json']
  static override description =
    'Changes nothing. Exits 1 when a problem is found; `db rebuild` repairs drifted projections.'
  static override flags = { json: Flags.boolean({ description: 'print the result as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(DbCheck)
    const result = await this.request('events:check', {})
    const healthy = result.integrity === 'ok' && result.drifted.length === 0
    if (flags.json) this.printJson({ ...result, healthy })
    else {
      this.log(`integrity: ${result.integrity}`)
      this.log(`events: ${result.events}`)
      this.log(
        `projections: ${result.drifted.length ? `drifted: ${result.drifted.join(', ')} (run db rebuild)` : 'equal to a replay'}`,
      )
    }
    if (!healthy) this.exit(1)
  }
}
