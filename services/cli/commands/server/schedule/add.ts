import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../../manager-command'

/** What a schedule is, as flags: `schedule add` requires when and what, `schedule edit` changes those given. */
export const scheduleFlags = (required: boolean) =>
  ({
    cron: Flags.string({ description: 'when, as a cron expression', required }),
    action: Flags.string({ description: 'what to do', options: ['backup', 'restart', 'command'], required }),
    command: Flags.string({ description: 'the console command (with --action command)' }),
    timezone: Flags.string({ description: 'an IANA time zone, e.g. Europe/Berlin' }),
    json: Flags.boolean({ description: 'print the schedule as JSON' }),
  }) as const

export default class ScheduleAdd extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = 'Add a recurring backup, restart or console command to a server'
  static override description =
    "The cron expression has 5 fields (minute hour day month weekday), or 6 with seconds first; it runs in the manager's time zone unless --timezone. Schedules run while the manager runs (server-manager start), each run a task and a servers:schedule_ran fact. A scheduled restart lets plugins warn players first (the lifecycle notifications plugin)."
  static override examples = [
    "<%= config.bin %> server schedule add survival --cron '0 4 * * *' --action restart",
    "<%= config.bin %> server schedule add survival --cron '*/30 * * * *' --action backup",
    "<%= config.bin %> server schedule add survival --cron '55 3 * * *' --action command --command 'say Restart in 5 minutes'",
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = scheduleFlags(true)

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ScheduleAdd)
    const schedule = await this.request('servers:schedule_add', {
      name: args.name,
      // Required flags (oclif refused the command without them).
      cron: String(flags.cron),
      action: String(flags.action),
      command: flags.command,
      timezone: flags.timezone,
    })
    if (flags.json) return this.printJson(schedule)
    this.log(
      `Schedule ${schedule.id} added: ${schedule.action} '${args.name}' at '${schedule.cron}', next ${schedule.nextRun ?? 'never'}.`,
    )
    const status = await this.request('manager:status', {}).catch(() => undefined)
    if (!status) this.logToStderr('Note: schedules run while the manager runs; start it with: server-manager start')
  }
}
