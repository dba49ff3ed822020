import { Args, Flags } from '@oclif/core'
import { ManagerCommand } from '../../manager-command'
import { sourceArg } from '../../setting-value'

export default class ServerUpdate extends ManagerCommand {
  static override summary = "Replace a bedrock server's binaries from a newer server zip, keeping its config and worlds"
  static override description =
    'server.properties, allowlist.json, permissions.json and worlds/ stay as they are; everything else comes from the release. A backup of the world and config is taken first. A running server is refused unless --stop, which stops it for the update and starts it again.'
  static override examples = [
    '<%= config.bin %> server update survival --from ~/Downloads/bedrock-server-1.21.50.07.zip --stop',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    from: Flags.string({ description: 'the server zip or directory', required: true }),
    stop: Flags.boolean({ description: 'stop the running server for the update, then start it again' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerUpdate)
    const reply = await this.withBackupProgress(args.name, () =>
      this.request('servers:update', {
        name: args.name,
        from: sourceArg(flags.from),
        stopStart: flags.stop,
      }),
    )
    this.log(
      `Updated '${args.name}' (${reply.replaced.length} files and folders replaced; config and worlds kept). Backup: ${reply.backup.map((b) => b.file).join(', ')}.`,
    )
  }
}
