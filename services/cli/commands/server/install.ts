import { resolve } from 'node:path'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'
import { sourceArg } from '../../setting-value'

export default class ServerInstall extends ManagerCommand {
  static override summary = 'Create a server from a Bedrock server zip (or an unpacked directory) and register it'
  static override description =
    'The zip is the one Mojang publishes (bedrock-server-<version>.zip), with bedrock_server at its top or in one folder. It is unpacked into <paths.servers>/<name> unless --dir, checked, and registered like server add. Downloads are not done here: fetch the zip first.'
  static override examples = [
    '<%= config.bin %> server install survival --from ~/Downloads/bedrock-server-1.21.44.01.zip',
    '<%= config.bin %> server install creative --from /srv/bds-template --dir /srv/creative',
  ]
  static override args = { name: Args.string({ description: 'the new server name', required: true }) }
  static override flags = {
    from: Flags.string({ description: 'the server zip or directory', required: true }),
    dir: Flags.string({ description: 'where to put it (must not exist, or be empty)' }),
    host: Flags.string({
      description: 'the host agent to install it on: --from and --dir are then paths on that machine, absolute',
      helpValue: '<host>',
    }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerInstall)
    // On another host, the paths are that machine's: not resolved here.
    const here = (path: string) => (flags.host ? path : resolve(path))
    const server = await this.request('servers:install', {
      name: args.name,
      from: flags.host ? flags.from : sourceArg(flags.from),
      dir: flags.dir === undefined ? undefined : here(flags.dir),
      ...(flags.host ? { host: flags.host } : {}),
    })
    const where = `Server '${server.name}' installed in ${server.dir}${server.host ? ` on host '${server.host}'` : ''}.`
    const start = `${this.config.bin} server start ${server.name}`
    // A game that runs only with its EULA accepted (Java Edition): that comes first, and only the admin may do it.
    const eula = await this.request('servers:eula', { name: server.name })
    if (eula.needed && !eula.accepted)
      return this.log(
        `${where} Its EULA comes first: read ${eula.url}, then accept it with '${this.config.bin} server eula ${server.name} --accept'. Then start it with: ${start}`,
      )
    this.log(`${where} Start it with: ${start}`)
  }
}
