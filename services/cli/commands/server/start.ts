import { createInterface } from 'node:readline'
import { Args, Flags } from '@oclif/core'
import { SupervisorClient } from '../../../servers/supervisor/client'
import { RunFiles } from '../../../servers/supervisor/run-files'
import { ManagerCommand } from '../../manager-command'
import { waitForSignal } from '../../wait-for-signal'

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
    const client = await SupervisorClient.connect(RunFiles.of(this.dataDir, name), name)
    if (!client) return this.log(`Server '${name}' ended already; see 'server logs ${name}'.`)
    const ended = new Promise<void>((resolve) => client.onClose(resolve))
    await client.request('own', {})
    const now = await client.subscribe(
      20,
      (line) => this.log(line),
      (entry) =>
        this.logToStderr(`[server-manager] ${name} is ${entry.status}${entry.reason ? ` (${entry.reason})` : ''}`),
    )
    for (const line of now.tail) this.log(line)
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
