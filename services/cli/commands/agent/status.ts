import * as Flags from '@oclif/core/flags'
import { formatSize, formatUptime } from '../../format'
import { ManagerCommand } from '../../manager-command'

export default class AgentStatus extends ManagerCommand {
  static override summary =
    "Say whether this data directory's host agent runs: PID, since when, memory, the servers it supervises"
  static override description =
    'The host agent supervises every running game server of the data directory (commands start it when a game needs one; it ends when it supervises nothing, unless run with `agent start`). This asks it over its socket and never starts one. Exits 0 either way; with --json, `running` tells which.'
  static override examples = ['<%= config.bin %> agent status', '<%= config.bin %> agent status --json']
  static override flags = { json: Flags.boolean({ description: 'print the status as JSON' }) }

  protected override loadsPlugins = false

  async run(): Promise<void> {
    const { flags } = await this.parse(AgentStatus)
    const agent = await this.request('servers:agent', {})
    if (flags.json) return this.printJson(agent)
    if (!agent.running)
      return this.log(`No host agent runs on ${agent.dataDir}: no game is supervised. A server start starts one.`)
    const since = agent.startedAt ? ` (up ${formatUptime(Date.now() - Date.parse(agent.startedAt))})` : ''
    this.log(`A host agent runs on ${agent.dataDir}`)
    this.log(`  PID      ${agent.pid}`)
    this.log(`  version  ${agent.version} (Node ${agent.node})`)
    this.log(`  started  ${agent.startedAt}${since}`)
    this.log(`  memory   ${formatSize(agent.rss ?? 0)} resident`)
    const runs = agent.runs ?? []
    this.log(`  servers  ${runs.length ? runs.map((r) => `${r.server} (${r.status})`).join(', ') : 'none'}`)
  }
}
