import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type { ServerRunStatus } from '../../../servers/contract'
import { formatOnline, formatUptime } from '../../format'
import { ManagerCommand } from '../../manager-command'
import { SERVER_STATUS_EXIT, serverStatusExitText } from '../../server-status-exit'

export default class ServerStatus extends ManagerCommand {
  protected override loadsPlugins = false
  protected override services = ['servers'] as const
  static override summary = "Show a server's status: stopped, starting, running, stopping, crashed or error"
  static override description =
    `The status comes from its supervisor, or, when none runs, from its state file checked against the process itself (PID, start time and boot id), so a reused PID is never taken for the server. While a manager runs and follows the server, it also shows who is online (from the game's join, leave and list lines); without a manager it does not ask the game: 'server players' does. The exit code tells the status, with or without --json, so that \`server status <name> && …\` means the server is up: ${serverStatusExitText()}. A status that cannot be read (no such server) exits with its error's code (docs/errors.md).`
  static override examples = [
    '<%= config.bin %> server status survival',
    '<%= config.bin %> server status survival --json',
    '<%= config.bin %> server status survival >/dev/null && echo up',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = { json: Flags.boolean({ description: 'print it as JSON' }) }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerStatus)
    const s = await this.request('servers:status', { name: args.name })
    this.#print(args.name, s, flags.json)
    const code = SERVER_STATUS_EXIT[s.status]?.code ?? 70
    if (code !== 0) this.exit(code)
  }

  #print(name: string, s: ServerRunStatus, json: boolean): void {
    if (json) {
      this.printJson(s)
      return
    }
    this.log(`${name}: ${s.status}${s.pid ? ` (PID ${s.pid})` : ''}`)
    this.log(`since       ${s.since}${s.reason ? `  (${s.reason})` : ''}`)
    if (s.startedAt) this.log(`up          ${formatUptime(Date.now() - Date.parse(s.startedAt))}`)
    this.log(
      `supervisor  ${s.supervisorPid ? `PID ${s.supervisorPid}${s.adopted ? ' (adopted the game)' : ''}` : 'none'}`,
    )
    this.log(`mode        ${s.mode}`)
    if (s.players) {
      const names = s.players.names.length ? `: ${s.players.names.join(', ')}` : ''
      this.log(`players     ${formatOnline(s.players)}${names}`)
    }
    if (s.restarts) this.log(`restarts    ${s.restarts} in a row after crashes`)
    if (!s.pid && (s.exitCode !== null || s.signal))
      this.log(`last exit   ${s.signal ? `signal ${s.signal}` : `code ${s.exitCode}`}`)
  }
}
