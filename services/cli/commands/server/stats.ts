import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { formatOnline, formatSize, formatUptime } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class ServerStats extends ManagerCommand {
  protected override loadsPlugins = false
  static override summary = "Show a running server's CPU, memory and disk use now"
  static override description =
    "Its supervisor's last resource sample (taken every metrics.interval_s from /proc, with or without a manager): CPU as % of one core (the game and what its main thread started), resident memory, its directory's size on disk (walked every metrics.disk_interval_s), uptime, and who is online while a manager follows it. The series over time is GET /api/servers/{name}/metrics and the server's page. A server that is not running has no sample."
  static override examples = [
    '<%= config.bin %> server stats survival',
    '<%= config.bin %> server stats survival --json',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print { status, sample, players } as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerStats)
    const s = await this.request('servers:status', { name: args.name })
    const sample = s.metrics
    if (flags.json) return this.printJson({ status: s.status, sample, players: s.players })
    if (!sample) {
      const why = s.pid ? 'no sample yet (metrics.enabled, from its next start)' : 'no samples while it is not running'
      this.log(`${args.name}: ${s.status}, ${why}`)
      return
    }
    this.log(`${args.name}: ${s.status} (PID ${s.pid}), up ${formatUptime(sample.uptime_s * 1000)}`)
    this.log(`cpu      ${sample.cpu.toFixed(1)}% of one core`)
    this.log(`memory   ${formatSize(sample.rss)}`)
    this.log(`disk     ${sample.disk === undefined ? 'not walked yet' : formatSize(sample.disk)}`)
    if (s.players) this.log(`players  ${formatOnline(s.players)}`)
    this.log(`sampled  ${new Date(sample.t).toISOString()}`)
  }
}
