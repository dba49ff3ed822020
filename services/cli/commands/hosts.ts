import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../kernel/errors'
import type { Host, NatsStatus } from '../../bridge/contract'
import { ManagerCommand } from '../manager-command'

const GB = 1024 ** 3

/** Asks the running manager only: it is the one on the broker. */
export default class Hosts extends ManagerCommand {
  static override summary =
    'List the host agents that joined the manager over NATS: online or not, load, memory, disk, servers'
  static override description =
    "Asks the running manager, which hears every host agent's beat on the NATS broker (server-manager agent start --nats … --name …). A host is offline once it said goodbye or missed three beats (15 s); its figures are then its last. Needs a running manager (exit 3 without)."
  static override examples = ['<%= config.bin %> hosts', '<%= config.bin %> hosts --json']
  static override flags = { json: Flags.boolean({ description: 'print the hosts as JSON' }) }

  async run(): Promise<void> {
    const { flags } = await this.parse(Hosts)
    const client = await this.runningManager()
    if (!client) throw new SmError('SM_ERR_MANAGER_NOT_RUNNING', { dataDir: this.dataDir })
    try {
      const nats = (await client.request('nats:status', {}, this.actor)) as NatsStatus
      const hosts = (await client.request('nats:hosts', {}, this.actor)) as Host[]
      if (flags.json) return this.printJson({ nats, hosts })
      if (!nats.configured)
        return this.log(
          `The manager is on no NATS broker, so every server runs on this machine. Join one with: ${this.config.bin} start --nats <url>`,
        )
      this.log(
        nats.connected
          ? `NATS: on the broker at ${nats.url}`
          : `NATS: not on the broker at ${nats.url}: ${nats.reason}`,
      )
      if (hosts.length === 0)
        return this.log(
          nats.connected
            ? `No host agent has joined since the manager started (${this.config.bin} agent start --nats <url> --name <host> on it).`
            : 'No host agent can join while the manager is not on the broker (see above); its hosts show here once it is.',
        )
      const rows = hosts.map((h) => [
        h.name,
        h.online ? 'online' : 'OFFLINE',
        h.since,
        h.version,
        h.load.map((l) => l.toFixed(2)).join(' '),
        `${((h.memory.total - h.memory.free) / GB).toFixed(1)}/${(h.memory.total / GB).toFixed(1)} GB`,
        `${(h.disk.free / GB).toFixed(1)} GB free`,
        // An offline host's are as its last beat said them: not now.
        h.servers.length === 0
          ? '-'
          : h.servers.map((s) => `${s.server} (${s.status}${h.online ? '' : ', last heard'})`).join(', '),
      ])
      const header = ['HOST', 'STATE', 'SINCE', 'VERSION', 'LOAD', 'MEMORY', 'DISK', 'SERVERS']
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)))
      for (const row of [header, ...rows])
        this.log(
          row
            .map((cell, i) => cell.padEnd(widths[i] as number))
            .join('  ')
            .trimEnd(),
        )
    } finally {
      client.close()
    }
  }
}
