import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'

export default class ServerEula extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "Show whether a server's game EULA is accepted, or accept it (--accept)"
  static override description =
    "Minecraft Java Edition runs only once its EULA (https://aka.ms/MinecraftEULA) is accepted in the server's eula.txt. server-manager never accepts it for you: a start is refused with SM_ERR_SERVER_EULA_REQUIRED until an admin runs this with --accept (or accepts it in the web UI). The acceptance is recorded as a servers:eula_accepted fact. Without --accept it exits 0 when the EULA is accepted (or not needed) and 78 while it is not."
  static override examples = ['<%= config.bin %> server eula paper', '<%= config.bin %> server eula paper --accept']
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    accept: Flags.boolean({ description: 'accept the EULA (you have read it and agree)' }),
    json: Flags.boolean({ description: 'print the state as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerEula)
    const state = await this.request('servers:eula', { name: args.name, accept: flags.accept })
    if (flags.json) return this.printJson(state)
    if (!state.needed) return this.log(`The game of '${args.name}' has no EULA to accept.`)
    if (state.accepted) return this.log(`The EULA of '${args.name}' is accepted (${state.file}).`)
    this.log(
      `The EULA of '${args.name}' is not accepted: read it at ${state.url}, then run '${this.config.bin} server eula ${args.name} --accept'.`,
    )
    this.exit(78)
  }
}
