import { Command } from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import type { Kernel, ServiceReport } from '../../kernel'
import type { Disposable } from '../../kernel/disposable'
import { errorLine, toSmError } from '../../kernel/errors'
import type { CommandName, CommandPayload, CommandReply, EventName, PayloadOf } from '../../kernel/maps'
import { cliError } from './cli-error'
import { formatSize } from './format'
import { type BootOptions, CliSession, type LogLevel, type ManagerClient, type Target } from './session'
import type { BuiltinService } from './wiring'

/**
 * The base of every built-in command. When a manager runs on the data directory, the command
 * is its client: requests go over the bus bridge and run there, under its plugins' hooks, as
 * `cli:<os user>`. When none runs, the command boots the built-in services in this process and
 * stops them afterwards. Every failure becomes `Error [SM_ERR_…]: message` with its exit code.
 * Inside the interactive menu, commands share the menu's session.
 */
export abstract class ManagerCommand extends Command {
  /** Console log level while the command runs in-process; one-shot commands only show problems. */
  protected consoleLevel: LogLevel = 'warn'
  /**
   * Whether running in-process needs the plugins loaded (their hooks veto actions, their
   * listeners receive events). Read-only commands discover plugins but run none.
   */
  protected loadsPlugins = true
  /**
   * The built-in services the command uses when it runs in-process (with those they depend on:
   * manager.ts, `only`); the others are only declared. A read names its own (issue 36 item 3).
   * Default: all.
   */
  protected services?: readonly BuiltinService[]
  #session: CliSession | undefined

  protected get actor(): string {
    return CliSession.actor
  }

  protected get dataDir(): string {
    return this.session.dataDir
  }

  /** The menu's session, or this command's own (made on first use). */
  protected get session(): CliSession {
    this.#session ??=
      CliSession.shared ??
      new CliSession({ consoleLevel: this.consoleLevel, loadsPlugins: this.loadsPlugins, services: this.services })
    return this.#session
  }

  /** What each service reported when an in-process manager booted. */
  protected get bootReport(): ServiceReport[] {
    return this.session.bootReport
  }

  /** The running manager, or an in-process one booted on first use. */
  protected target(): Promise<Target> {
    return this.session.target()
  }

  /** The running manager, as its client; undefined when none runs (this never boots one). */
  protected runningManager(): Promise<ManagerClient | undefined> {
    return CliSession.running(this.dataDir)
  }

  /** Boots the built-in services in this process (loaded lazily: a client never needs them). */
  protected boot(options: BootOptions): Promise<Kernel> {
    return this.session.boot(options)
  }

  /** Asks the manager; a reply's `warning` (work done but not recorded) is said on stderr. */
  protected async request<K extends CommandName>(name: K, payload: CommandPayload<K>): Promise<CommandReply<K>> {
    const reply = (await this.session.request(name, payload, this.actor)) as CommandReply<K>
    const warning = (reply as { warning?: unknown } | undefined)?.warning
    if (typeof warning === 'string') this.logToStderr(`Warning: ${warning}`)
    return reply
  }

  /** Receives `event` from the manager (running or in-process) until the command ends. */
  protected subscribe<K extends EventName>(event: K, listener: (payload: PayloadOf<K>) => void): Promise<Disposable> {
    return this.session.subscribe(event, (payload) => listener(payload as PayloadOf<K>), 'cli')
  }

  /**
   * Runs `work` (a stop or a restart of `server`) saying on stderr each command that goes to the
   * server meanwhile, as it is sent: what plugins tell its players first (the shipped
   * notifications: "say Server stopping in 5 seconds."), which the stop then waits for.
   */
  protected async sayingWhatIsSent<T>(server: string, work: () => Promise<T>): Promise<T> {
    const sent = await this.subscribe('after_command_send', (p) => {
      if (p.serverName === server) this.logToStderr(`Sent to ${server} first: ${p.command}`)
    })
    try {
      return await work()
    } finally {
      sent.dispose()
    }
  }

  /**
   * Runs `work` with a progress line on stderr while a server's backup, restore or export runs
   * (on a terminal only: piped output stays clean).
   */
  protected async withBackupProgress<T>(server: string, work: () => Promise<T>): Promise<T> {
    if (!process.stderr.isTTY) return work()
    const subscription = await this.subscribe('servers:backup_progress', (p) => {
      if (p.serverName === server)
        // Each line over the last one, cleared first: a shorter line leaves nothing of a longer one.
        process.stderr.write(
          `\r\x1b[2K${p.operation} ${p.file}: ${p.percent}% (${formatSize(p.bytes)} of ${formatSize(p.totalBytes)})`,
        )
    })
    try {
      return await work()
    } finally {
      subscription.dispose()
      process.stderr.write('\n')
    }
  }

  protected printJson(value: unknown): void {
    this.log(JSON.stringify(value, null, 2))
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    const coded = cliError(error, Object.keys(this.ctor.flags ?? {})) ?? toSmError(error)
    this.logToStderr(errorLine(coded))
    if (coded.code === 'SM_ERR_INTERNAL' && error.stack) this.logToStderr(error.stack)
    return this.exit(coded.exitCode)
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    const session = this.#session
    this.#session = undefined
    await session?.release()
    return super.finally(error)
  }
}
