import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'
import { sourceArg } from '../../setting-value'

export default class ServerUpdate extends ManagerCommand {
  static override summary = "Update a server's program from a newer release, keeping its config and worlds"
  static override description =
    "Bedrock: from a server zip or directory; java: from a server jar (it replaces the jar the server runs, under that jar's name) or a zip of a server folder. Its profile's config files (bedrock: server.properties, allowlist.json, permissions.json; java: server.properties, ops.json, whitelist.json, ...) and its world (bedrock worlds/, a java level folder with its _nether and _the_end) stay as they are; everything else comes from the release. The release is checked to be the same game first, then everything the server has is backed up. A running server is refused unless --stop, which stops it for the update and starts it again. A generic server is refused: replace its files by hand."
  static override examples = [
    '<%= config.bin %> server update survival --from ~/Downloads/bedrock-server-1.21.50.07.zip --stop',
    '<%= config.bin %> server update paper --from ~/Downloads/paper-1.21.4-12.jar --stop',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    from: Flags.string({ description: 'the release: a server zip, a directory, or a java server jar', required: true }),
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
