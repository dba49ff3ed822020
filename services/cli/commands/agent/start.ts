import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { Flags } from '@oclif/core'
import { ManagerCommand } from '../../manager-command'

/** The agent's program (services/servers/supervisor/agent.ts): run, not imported, so the CLI loads none of it. */
const AGENT = join(__dirname, '..', '..', '..', 'servers', 'supervisor', 'agent.js')

export default class AgentStart extends ManagerCommand {
  static override summary =
    "Run this machine's host agent in the foreground, joined to a manager's NATS broker as host NAME"
  static override description =
    "The host agent supervises every game server of this data directory (it adopts the ones still running). With --nats and --name it joins the manager's broker as that host: it beats every 5 s with its load, memory, disk and servers (server-manager hosts on the manager shows them), using only the subjects sm.agent.<name>.> its credentials allow. Credentials: --credentials (a .creds file or an nkey seed, as `agent credentials` prints), or SM_NATS_USER and SM_NATS_PASSWORD. A broker that is not there does not stop it: it supervises and keeps trying. Ctrl-C or SIGTERM ends it; the games keep running. For systemd, see the README."
  static override examples = [
    '<%= config.bin %> agent start --nats nats://panel.example.com:4222 --name node2 --credentials /etc/server-manager/node2.seed',
    'SM_NATS_USER=node2 SM_NATS_PASSWORD=… <%= config.bin %> agent start --nats nats://panel:4222 --name node2',
  ]
  static override flags = {
    nats: Flags.string({
      description: "the manager's NATS broker (nats://host:4222 or tls://…)",
      helpValue: '<url>',
      dependsOn: ['name'],
    }),
    name: Flags.string({
      description: "this host's name on the broker (letters, digits, '_', '-')",
      helpValue: '<host>',
      dependsOn: ['nats'],
    }),
    credentials: Flags.string({ description: 'a .creds file or an nkey seed file', helpValue: '<file>' }),
    'tls-ca': Flags.string({
      description: "a PEM file of the CA that signed the broker's certificate (TLS on)",
      helpValue: '<file>',
    }),
    prefix: Flags.string({ description: "the manager's nats.prefix", default: 'sm', helpValue: '<prefix>' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(AgentStart)
    const args = [AGENT, this.dataDir, '--stay']
    if (flags.nats && flags.name) args.push('--nats', flags.nats, '--name', flags.name, '--prefix', flags.prefix)
    if (flags.credentials) args.push('--credentials', flags.credentials)
    if (flags['tls-ca']) args.push('--tls-ca', flags['tls-ca'])
    const agent = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] })
    // Ctrl-C reaches it too (same process group); SIGTERM is passed on.
    process.on('SIGINT', () => {})
    process.on('SIGTERM', () => agent.kill('SIGTERM'))
    const code = await new Promise<number>((resolve) =>
      agent.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))),
    )
    if (code !== 0) this.exit(code)
  }
}
