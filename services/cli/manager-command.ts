import { userInfo } from 'node:os'
import { Command, Errors } from '@oclif/core'
import './errors'
import { SmError, toSmError } from '../../kernel'
import type { CommandName, CommandPayload, CommandReply, Kernel, LogLevel, ServiceReport } from '../../manager'
import { createManager } from '../../manager'

/**
 * The base of every built-in command: boots a manager (the built-in services on the data
 * directory) on first use, sends requests as `cli:<os user>`, stops it afterwards, and turns
 * every failure into `Error [SM_ERR_…]: message` with the error's exit code.
 */
export abstract class ManagerCommand extends Command {
  /** Console log level while the command runs; one-shot commands only show problems. */
  protected consoleLevel: LogLevel = 'warn'
  /** What each service reported when the manager booted. */
  protected bootReport: ServiceReport[] = []
  #manager: Kernel | undefined

  protected get actor(): string {
    try {
      return `cli:${userInfo().username}`
    } catch {
      return 'cli:unknown'
    }
  }

  /** The started manager (booted on first call). */
  protected async manager(): Promise<Kernel> {
    if (!this.#manager) {
      const manager = createManager({ consoleLevel: this.consoleLevel })
      this.#manager = manager
      this.bootReport = await manager.start()
    }
    return this.#manager
  }

  protected async request<K extends CommandName>(name: K, payload: CommandPayload<K>): Promise<CommandReply<K>> {
    const manager = await this.manager()
    return manager.bus.request(name, payload, { actor: this.actor })
  }

  protected printJson(value: unknown): void {
    this.log(JSON.stringify(value, null, 2))
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    const coded = isParseError(error)
      ? new SmError(
          'SM_ERR_CLI_INVALID_ARGUMENT',
          { name: 'arguments', reason: oneLine(error.message) },
          { cause: error },
        )
      : toSmError(error)
    this.logToStderr(`Error [${coded.code}]: ${coded.message}`)
    if (coded.code === 'SM_ERR_INTERNAL' && error.stack) this.logToStderr(error.stack)
    return this.exit(coded.exitCode)
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    const manager = this.#manager
    this.#manager = undefined
    await manager?.stop()
    return super.finally(error)
  }
}

function isParseError(error: unknown): error is Error {
  return error instanceof Errors.CLIError && 'parse' in error
}

function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/:$/, '')
}
