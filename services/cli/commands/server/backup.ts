import { Args, Flags } from '@oclif/core'
import { formatSize } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerBackup extends ManagerCommand {
  static override summary = "Back up a server's world, config or both"
  static override description =
    'A running bedrock server is backed up hot (save hold, save query, copy exactly the listed files at the listed lengths, save resume): it never stops. --stop stops it, backs up and starts it again instead (servers.backup.hot=false does so always). A running generic server is stopped and started again. Archives land in <paths.backups>/<name>/ (world_<time>.mcworld for bedrock, .zip otherwise; config_<time>.zip); only the newest retention.backups of each kind are kept. --type all backs up everything the server has: a part it lacks (no config file, no world directory) is skipped and said; with neither it fails. A backup that fails writes nothing (archives it finished are removed); retention runs after every backup that wrote one, also when the start after a --stop backup fails.'
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
