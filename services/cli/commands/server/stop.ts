import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class ServerStop extends ManagerCommand {
  static override summary = 'Stop a server: its stop command, then SIGTERM, then SIGKILL'
  static override description =
    'Sends the stop command (`stop` for bedrock) and waits servers.stop_timeout_s; a server still running then gets SIGTERM, and servers.kill_timeout_s later SIGKILL. Plugins hook it as server_stop (the lifecycle plugin warns players first).'
  static override examples = ['<%= config.bin %> server stop survival']
  static override args = { name: Args.string({ description: 'the server name', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(ServerStop)
    this.logToStderr(`Stopping ${args.name}...`)
    const exit = await this.sayingWhatIsSent(args.name, () => this.request('servers:stop', { name: args.name }))
    const how = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode ?? 'unknown'}`
    this.log(
      `Server '${args.name}' stopped (${how})${exit.escalated ? `; it ignored its stop command, so it got ${exit.escalated}` : ''}.`,
    )
  }
}
