import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../../manager-command'

export default class ScheduleRemove extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Remove a schedule by its id'
  static override examples = ['<%= config.bin %> server schedule remove 3f2a9c1d']
  static override args = {
    id: Args.string({ description: "the schedule's id (server schedule list)", required: true }),
  }

  async run(): Promise<void> {
    const { args } = await this.parse(ScheduleRemove)
    const schedule = await this.request('servers:schedule_remove', { id: args.id })
    this.log(`Schedule ${schedule.id} (${schedule.action} '${schedule.server}' at '${schedule.cron}') removed.`)
  }
}
