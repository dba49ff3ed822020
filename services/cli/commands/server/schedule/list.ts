import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../../manager-command'

export default class ScheduleList extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'List the schedules (of one server, or all) with their next run'
  static override description =
    'A stored schedule that cannot run (its time zone is unknown to this system, say) is listed as INVALID with the reason, and the manager skips it; remove it and add it again corrected.'
  static override examples = [
    '<%= config.bin %> server schedule list',
    '<%= config.bin %> server schedule list survival --json',
  ]
  static override args = { name: Args.string({ description: 'only this server' }) }
  static override flags = { json: Flags.boolean({ description: 'print them as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ScheduleList)
    const list = await this.request('servers:schedule_list', { name: args.name })
    if (flags.json) return this.printJson(list)
    if (list.length === 0) return this.log('No schedules.')
    for (const s of list)
      this.log(
        `${s.id}  ${s.server}  ${s.action}${s.command ? ` '${s.command}'` : ''}  '${s.cron}'${s.timezone ? ` ${s.timezone}` : ''}  ${s.invalid ? `INVALID, skipped: ${s.invalid}` : `next ${s.nextRun ?? 'never'}`}`,
      )
  }
}
