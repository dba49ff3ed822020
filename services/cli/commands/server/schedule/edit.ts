import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../../manager-command'
import { scheduleFlags } from './add'

export default class ScheduleEdit extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "Change one of a server's schedules in place (its id kept): only the flags given change"
  static override examples = [
    "<%= config.bin %> server schedule edit survival 3f2a9c1d --cron '30 4 * * *'",
    "<%= config.bin %> server schedule edit survival 3f2a9c1d --action command --command 'say Backup soon'",
  ]
  static override args = {
    name: Args.string({ description: 'the server name', required: true }),
    id: Args.string({ description: "the schedule's id (server schedule list)", required: true }),
  }
  static override flags = scheduleFlags(false)

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ScheduleEdit)
    const schedule = await this.request('servers:schedule_edit', {
      name: args.name,
      id: args.id,
      cron: flags.cron,
      action: flags.action,
      command: flags.command,
      timezone: flags.timezone,
    })
    if (flags.json) return this.printJson(schedule)
    this.log(
      `Schedule ${schedule.id} changed: ${schedule.action}${schedule.command ? ` '${schedule.command}'` : ''} '${args.name}' at '${schedule.cron}', next ${schedule.nextRun ?? 'never'}.`,
    )
  }
}
