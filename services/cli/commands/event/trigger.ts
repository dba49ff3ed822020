import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { logFile } from '../../../../lib/data-dir'
import { ManagerCommand } from '../../manager-command'

export default class EventTrigger extends ManagerCommand {
  static override summary = 'Trigger a custom plugin event, as an external system would'
  static override description =
    "Enabled plugins listening for the event receive the payload and the sender 'external_api_trigger'. Prints who received it, and where what the listeners logged went (the log file of the manager that ran them)."
  static override examples = [
    '<%= config.bin %> event trigger pingplugin:ping',
    '<%= config.bin %> event trigger automation:user_arrived_home --payload \'{"user":"alice"}\'',
  ]
  static override args = { event: Args.string({ description: '<namespace>:<event>', required: true }) }
  static override flags = {
    payload: Flags.string({ description: 'a JSON object handed to every listener', default: '{}' }),
    json: Flags.boolean({ description: 'print the delivery report as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(EventTrigger)
    let payload: unknown
    try {
      payload = JSON.parse(flags.payload)
    } catch (error) {
      throw new SmError('SM_ERR_CLI_INVALID_ARGUMENT', {
        name: '--payload',
        reason: `it is not JSON (${(error as Error).message})`,
      })
    }
    const report = await this.request('plugins:trigger_event', {
      event: args.event,
      payload: payload as Record<string, unknown>,
    })
    if (flags.json) return this.printJson(report)
    const skipped = report.skipped ? ' (skipped: already being dispatched)' : ''
    this.log(
      `Event '${report.event}' triggered: delivered to ${report.delivered} of ${report.listeners} listeners${skipped}.`,
    )
    for (const failure of report.failed) this.log(`  failed in ${failure.plugin}: ${failure.error}`)
    if (report.delivered === 0) return
    // What the listeners logged is not this command's output: say where it went.
    const where = (await this.target()).kind === 'remote' ? 'the running manager' : 'this command'
    this.log(
      `The listeners ran in ${where}; what they logged is in ${logFile(this.dataDir)}${where === 'this command' ? '' : " (and on the manager's own output)"}.`,
    )
  }
}
