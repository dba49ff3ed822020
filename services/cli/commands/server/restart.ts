import * as Args from '@oclif/core/args'
import { ManagerCommand } from '../../manager-command'

export default class ServerRestart extends ManagerCommand {
  static override summary = 'Stop a server if it runs, then start it again'
  static override examples = ['<%= config.bin %> server restart survival']
  static override args = { name: Args.string({ description: 'the server name', required: true }) }

  async run(): Promise<void> {
    const { args } = await this.parse(ServerRestart)
    this.logToStderr(`Restarting ${args.name}...`)
    const reply = await this.sayingWhatIsSent(args.name, () => this.request('servers:restart', { name: args.name }))
    this.log(`Server '${args.name}' is ${reply.status} (PID ${reply.pid}).`)
  }
}
