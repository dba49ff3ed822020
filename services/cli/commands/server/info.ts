import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class ServerInfo extends ManagerCommand {
  protected override loadsPlugins = false
  protected override services = ['servers'] as const
  static override summary = "Show a server's record: directory, profile, how it starts, its world"
  static override examples = ['<%= config.bin %> server info survival', '<%= config.bin %> server info survival --json']
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print it as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerInfo)
    const server = await this.request('servers:info', { name: args.name })
    if (flags.json) return this.printJson(server)
    const env = Object.entries(server.env).map(([k, v]) => `${k}=${v}`)
    this.log(`name      ${server.name}`)
    this.log(`profile   ${server.profile}`)
    if (server.host !== undefined) this.log(`host      ${server.host} (its directory and process are on that machine)`)
    this.log(`directory ${server.dir}${server.dirExists ? '' : ' (missing!)'}`)
    this.log(`command   ${[server.command, ...server.args].join(' ')}${env.length ? `  (${env.join(' ')})` : ''}`)
    this.log(`stop      ${server.stopCommand}`)
    this.log(`world     ${server.world ?? '-'}`)
    this.log(`added     ${server.addedAt}`)
  }
}
