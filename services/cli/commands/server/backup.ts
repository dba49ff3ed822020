import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { formatSize } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerBackup extends ManagerCommand {
  static override summary = "Back up a server's world, config or both"
  static override description =
    "A running server is backed up hot where its profile can, and never stops: bedrock by save hold, save query, a copy of exactly the listed files at the listed lengths, save resume; java and a server added with --hot-backup 'off;flush;on' by its off commands, its flush commands (their replies complete), a copy of the whole world, its on commands. Saving is turned back on whatever process dies. A server whose profile has no hot backup is stopped, copied and started again, with a warning. --stop stops it even where it could be hot (servers.backup.hot=false does so always). Archives land in <paths.backups>/<name>/ (world_<time>.mcworld for bedrock, .zip otherwise; config_<time>.zip); only the newest retention.backups of each kind are kept. --type all backs up everything the server has: a part it lacks (no config file, no world directory) is skipped and said; with neither it fails. A backup that fails writes nothing (archives it finished are removed); retention runs after every backup that wrote one, also when the start after a --stop backup fails."
  static override examples = [
    '<%= config.bin %> server backup survival',
    '<%= config.bin %> server backup survival --type all',
    '<%= config.bin %> server backup survival --stop',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    type: Flags.string({ description: 'what to back up', options: ['world', 'config', 'all'], default: 'world' }),
    stop: Flags.boolean({ description: 'stop the server for the backup and start it again (no hot backup)' }),
    json: Flags.boolean({ description: 'print the result as JSON' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerBackup)
    const reply = await this.withBackupProgress(args.name, () =>
      this.request('servers:backup', {
        name: args.name,
        type: flags.type as 'world' | 'config' | 'all',
        stopStart: flags.stop ? true : undefined,
      }),
    )
    if (flags.json) return this.printJson(reply)
    for (const file of reply.files) this.log(`${file.file}  ${formatSize(file.bytes)}  (${reply.method})`)
    for (const skip of reply.skipped) this.log(`skipped the ${skip.kind} backup: ${skip.reason}`)
    if (reply.pruned.length) this.log(`removed by retention: ${reply.pruned.join(', ')}`)
  }
}
