import * as Flags from '@oclif/core/flags'
import type { ManagerStatus } from '../../bridge/contract'
import { formatUptime } from '../format'
import { ManagerCommand } from '../manager-command'

/** Asks the running manager only: it never boots one, so it answers the same whatever runs. */
export default class Status extends ManagerCommand {
  static override summary = 'Say whether a manager runs on the data directory: PID, uptime, loaded plugins'
  static override description =
    'Asks the running manager (server-manager start) over its socket. Exits 0 either way; with --json, `running` tells which.'
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --json']
  static override flags = { json: Flags.boolean({ description: 'print the status as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(Status)
    const dataDir = this.dataDir
    const client = await this.runningManager()
    if (!client) {
      if (flags.json) return this.log(JSON.stringify({ running: false, dataDir }, null, 2))
      return this.log(
        `No manager runs on ${dataDir}. Commands run in their own process; start one with: ${this.config.bin} start`,
      )
    }
    try {
      const status = (await client.request('manager:status', {}, this.actor)) as ManagerStatus
      if (flags.json) return this.log(JSON.stringify({ running: true, ...status }, null, 2))
      this.log(`A manager runs on ${status.dataDir}`)
      this.log(`  PID      ${status.pid}`)
      this.log(`  version  ${status.version}`)
      this.log(`  started  ${status.startedAt} (up ${formatUptime(status.uptimeMs)})`)
      this.log(`  plugins  ${status.plugins.length ? status.plugins.join(', ') : 'none loaded'}`)
      this.log(`  clients  ${status.clients}`)
      const nats = status.nats
      if (nats?.configured)
        this.log(
          nats.connected
            ? `  NATS     on the broker at ${nats.url} since ${nats.since} (${nats.host === undefined ? `subjects ${nats.prefix}.>` : `host agent '${nats.host}', subjects ${nats.prefix}.agent.${nats.host}.>`})`
            : `  NATS     not on the broker at ${nats.url} since ${nats.since}: ${nats.reason}`,
        )
    } finally {
      client.close()
    }
  }
}
