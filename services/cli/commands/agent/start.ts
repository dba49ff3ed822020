import { spawn } from 'node:child_process'
import { join } from 'node:path'
import * as Flags from '@oclif/core/flags'
import { SmError } from '../../../../kernel/errors'
import { isSubjectToken } from '../../../../lib/nats-subjects'
import type { NatsStatus } from '../../../bridge/contract'
import { ManagerCommand } from '../../manager-command'
import { waitForSignal } from '../../wait-for-signal'
import { reportLine } from '../start'

/** The lean agent's program (services/servers/supervisor/agent.ts): run, not imported, so the CLI loads none of it. */
const AGENT = join(__dirname, '..', '..', '..', 'servers', 'supervisor', 'agent.js')

export default class AgentStart extends ManagerCommand {
  static override summary =
    "Run this machine's host agent in the foreground; with --nats and --name, joined to a manager's NATS broker as that host"
  static override description =
    "Alone, it is the agent that supervises every game of this data directory (it adopts the ones still running, and stays). With --nats and --name it is this machine's host for a manager on the broker: the manager adds servers here (server add --host NAME), sends them its commands, runs its plugins' hooks for them, and takes in their facts; it beats every 5 s with its load, memory, disk and servers (server-manager hosts). It uses only the subjects sm.agent.<name>.> its credentials allow: --credentials (a .creds file or an nkey seed, as `agent credentials` prints), or SM_NATS_USER and SM_NATS_PASSWORD. A broker that is not there does not stop it: its servers run on, and it keeps trying. Ctrl-C or SIGTERM ends it; the games keep running. For systemd, see the README."
  static override examples = [
    '<%= config.bin %> agent start --nats nats://panel.example.com:4222 --name node2 --credentials /etc/server-manager/node2.seed',
    'SM_NATS_USER=node2 SM_NATS_PASSWORD=… <%= config.bin %> agent start --nats nats://panel:4222 --name node2',
    '<%= config.bin %> agent start',
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

  protected override consoleLevel = 'info' as const

  async run(): Promise<void> {
    const { flags } = await this.parse(AgentStart)
    const invalid = (name: string, reason: string) => new SmError('SM_ERR_CLI_INVALID_ARGUMENT', { name, reason })
    if (flags.nats === undefined) {
      const joining = (['credentials', 'tls-ca'] as const).find((flag) => flags[flag] !== undefined)
      if (joining || flags.prefix !== 'sm')
        throw invalid(`--${joining ?? 'prefix'}`, 'it is for joining a broker: give --nats and --name too')
      return this.#alone()
    }
    if (flags.nats.trim() === '') throw invalid('--nats', 'it is empty: give the broker, nats://host:4222')
    if (!flags.name || !isSubjectToken(flags.name))
      throw invalid('--name', `'${flags.name}' must be letters, digits, '_' and '-' (64 at most)`)
    if (!isSubjectToken(flags.prefix)) throw invalid('--prefix', `'${flags.prefix}' must be one subject token`)
    const user = process.env.SM_NATS_USER
    const password = process.env.SM_NATS_PASSWORD
    // Not for the games or anything else this process starts.
    delete process.env.SM_NATS_PASSWORD
    const booting = this.boot({
      daemon: true,
      host: {
        name: flags.name,
        version: this.config.version,
        config: {
          url: flags.nats,
          prefix: flags.prefix,
          ...(flags.credentials ? { credentials: flags.credentials } : {}),
          ...(flags['tls-ca'] ? { tlsCa: flags['tls-ca'] } : {}),
          ...(user ? { user, password: password ?? '' } : {}),
        },
      },
    })
    // Listening from now: a signal sent once it is on the broker (its first beat) must find the handler.
    const stopSignal = waitForSignal(
      booting.then(
        () => new Promise<never>(() => {}),
        () => undefined,
      ),
    )
    const manager = await booting
    this.log(`server-manager host agent '${flags.name}', data directory ${manager.config.dataDir}, PID ${process.pid}`)
    for (const line of this.bootReport) this.log(reportLine(line))
    const nats = (await manager.bus.request('nats:status', {})) as NatsStatus
    this.log(
      nats.connected
        ? `NATS: on the broker at ${nats.url} as host '${flags.name}'`
        : `NATS: not on the broker at ${nats.url} yet (${nats.reason}); trying again in the background`,
    )
    this.log('ready; press Ctrl-C to stop (the games keep running)')
    const signal = await stopSignal
    this.log(`${signal ?? 'asked'}: stopping`)
    for (const line of await manager.stop()) this.log(reportLine(line))
    this.log('stopped')
  }

  /** The supervision agent alone, in the foreground (--stay), until a signal ends it. */
  async #alone(): Promise<void> {
    const agent = spawn(process.execPath, [AGENT, this.dataDir, '--stay'], { stdio: ['ignore', 'inherit', 'inherit'] })
    // Ctrl-C reaches it too (same process group); SIGTERM is passed on.
    process.on('SIGINT', () => {})
    process.on('SIGTERM', () => agent.kill('SIGTERM'))
    const code = await new Promise<number>((resolve) =>
      agent.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))),
    )
    if (code !== 0) this.exit(code)
  }
}
