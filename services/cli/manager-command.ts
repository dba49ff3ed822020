import { userInfo } from 'node:os'
import { Command, Errors } from '@oclif/core'
import './errors'
import type { Disposable } from '../../kernel/disposable'
import { toSmError } from '../../kernel/errors'
import type { CommandName, CommandPayload, CommandReply, EventName, PayloadOf } from '../../kernel/maps'
import type { Kernel, LogLevel, ServiceReport } from '../../manager'
import { BridgeClient } from '../bridge/client'
import { resolveDataDir } from '../settings/data-dir'
import { cliError } from './cli-error'
import { formatSize } from './format'

/** Where a command's requests go: the running manager over the bridge, or one booted in this process. */
type Target =
  | { readonly kind: 'remote'; readonly client: BridgeClient }
  | { readonly kind: 'local'; readonly kernel: Kernel }

/**
 * The base of every built-in command. When a manager runs on the data directory, the command
 * is its client: requests go over the bus bridge and run there, under its plugins' hooks, as
 * `cli:<os user>`. When none runs, the command boots the built-in services in this process and
 * stops them afterwards. Every failure becomes `Error [SM_ERR_…]: message` with its exit code.
 */
export abstract class ManagerCommand extends Command {
  /** Console log level while the command runs in-process; one-shot commands only show problems. */
  protected consoleLevel: LogLevel = 'warn'
  /**
   * Whether running in-process needs the plugins loaded (their hooks veto actions, their
   * listeners receive events). Read-only commands discover plugins but run none.
   */
  protected loadsPlugins = true
  /** What each service reported when an in-process manager booted. */
  protected bootReport: ServiceReport[] = []
  #target: Target | undefined

  protected get actor(): string {
    try {
      return `cli:${userInfo().username}`
    } catch {
      return 'cli:unknown'
    }
  }

  protected get dataDir(): string {
    return resolveDataDir()
  }

  /** The running manager, or an in-process one booted on first use. */
  protected async target(): Promise<Target> {
    if (!this.#target) {
      const client = await BridgeClient.connect(this.dataDir)
      this.#target = client ? { kind: 'remote', client } : { kind: 'local', kernel: await this.boot({}) }
    }
    return this.#target
  }

  /** Boots the built-in services in this process (loaded lazily: a client never needs them). */
  protected async boot(options: { daemon?: boolean }): Promise<Kernel> {
    const { createManager } = require('../../manager') as typeof import('../../manager')
    const kernel = createManager({
      dataDir: this.dataDir,
      consoleLevel: this.consoleLevel,
      loadPlugins: this.loadsPlugins,
      daemon: options.daemon,
      oneShot: !options.daemon,
      watchdog: true,
    })
    this.#target = { kind: 'local', kernel }
    this.bootReport = await kernel.start()
    return kernel
  }

  protected async request<K extends CommandName>(name: K, payload: CommandPayload<K>): Promise<CommandReply<K>> {
    const target = await this.target()
    if (target.kind === 'remote') return (await target.client.request(name, payload, this.actor)) as CommandReply<K>
    return target.kernel.bus.request(name, payload, { actor: this.actor })
  }

  /** Receives `event` from the manager (running or in-process) until the command ends. */
  protected async subscribe<K extends EventName>(
    event: K,
    listener: (payload: PayloadOf<K>) => void,
  ): Promise<Disposable> {
    const target = await this.target()
    if (target.kind === 'remote') return target.client.on(event, (payload) => listener(payload as PayloadOf<K>))
    return target.kernel.bus.on(event, (payload) => listener(payload as PayloadOf<K>), { owner: 'cli' })
  }

  /**
   * Runs `work` with a progress line on stderr while a server's backup, restore or export runs
   * (on a terminal only: piped output stays clean).
   */
  protected async withBackupProgress<T>(server: string, work: () => Promise<T>): Promise<T> {
    if (!process.stderr.isTTY) return work()
    const subscription = await this.subscribe('backup_progress', (p) => {
      if (p.serverName === server)
        process.stderr.write(
          `\r${p.operation} ${p.file}: ${p.percent}% (${formatSize(p.bytes)} of ${formatSize(p.totalBytes)})`,
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
    const coded = cliError(error) ?? toSmError(error)
    this.logToStderr(`Error [${coded.code}]: ${coded.message}`)
    if (coded.code === 'SM_ERR_INTERNAL' && error.stack) this.logToStderr(error.stack)
    return this.exit(coded.exitCode)
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    const target = this.#target
    this.#target = undefined
    if (target?.kind === 'remote') target.client.close()
    if (target?.kind === 'local') await target.kernel.stop()
    return super.finally(error)
  }
}
