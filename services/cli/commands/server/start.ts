import { createInterface } from 'node:readline'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import { ManagerCommand } from '../../manager-command'
import { waitForSignal } from '../../wait-for-signal'
import { wiring } from '../../wiring'

export default class ServerStart extends ManagerCommand {
  static override summary = 'Start a server (detached: it keeps running after this command, and after the manager)'
  static override description =
    'Answers once the server is up (bedrock: its "Server started." line). Detached, the default, leaves the server under its own small supervisor: any later command can see it, send it commands and stop it. --direct runs it in the foreground: its console is printed here, lines typed here are sent to it, and Ctrl+C (or closing this command) stops it.'
  static override examples = [
    '<%= config.bin %> server start survival',
    '<%= config.bin %> server start survival --direct',
  ]
  static override args = { name: Args.string({ description: 'the server name', required: true }) }
  static override flags = {
    direct: Flags.boolean({ description: 'run it in the foreground of this command, with its console attached' }),
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerStart)
    const mode = flags.direct ? 'direct' : 'detached'
    const reply = await this.request('servers:start', { name: args.name, mode })
    if (!flags.direct) return this.log(`Server '${args.name}' is ${reply.status} (PID ${reply.pid}).`)
    await this.#attach(args.name)
  }

  /** direct mode: this process owns the run; when it ends (or Ctrl+C), the server is stopped. */
  async #attach(name: string): Promise<void> {
    const held = await wiring().holdRun(this.dataDir, name, {
      onLine: (line) => this.log(line),
      onStatus: (entry) =>
        this.logToStderr(`[server-manager] ${name} is ${entry.status}${entry.reason ? ` (${entry.reason})` : ''}`),
    })
    if (!held) return this.log(`Server '${name}' ended already; see 'server logs ${name}'.`)
    const { ended } = held
    for (const line of held.tail) this.log(line)
    const input = createInterface({ input: process.stdin })
    input.on('line', (line) => {
      if (line.trim())
        void this.request('servers:send', { name, command: line }).catch((error: Error) =>
          this.logToStderr(error.message),
        )
    })
    if (await waitForSignal(ended)) {
      this.logToStderr(`Stopping ${name}...`)
      await this.request('servers:stop', { name })
      await ended
    }
    input.close()
  }
}
