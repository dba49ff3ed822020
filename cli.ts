/**
 * The plugin CLI SDK: what `import … from 'server-manager/cli'` gives a plugin, so a plugin in
 * the user's data directory needs no packages of its own.
 *
 * ```ts
 * import { PluginBase } from 'server-manager'
 * import { Command, Flags } from 'server-manager/cli'
 *
 * class Hello extends Command {
 *   static id = 'hello'                      // in the topic below: `server-manager greet hello`
 *   static summary = 'Say hello'
 *   static examples = ['<%= config.bin %> greet hello --name Steve']
 *   static flags = { name: Flags.string({ char: 'n', required: true, description: 'who to greet' }) }
 *   async run() {
 *     const { flags } = await this.parse(Hello)
 *     this.log(`Hello, ${flags.name}!`)
 *     await this.api.sendEvent('greet:said_hello', { name: flags.name })
 *   }
 * }
 *
 * export default class Greet extends PluginBase {
 *   static version = '1.0.0'
 *   getCliCommands() {
 *     return [{ name: 'greet', description: 'Greetings', commands: [Hello] }]
 *   }
 * }
 * ```
 */
import * as Args from '@oclif/core/args'
import { Command as OclifCommand } from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'
import { knowErrors } from './kernel/error-catalogue'
import { errorLine, SmError, toSmError } from './kernel/errors'
import type { Logger } from './kernel/logger'
import { logFile } from './lib/data-dir'
import { natsErrors } from './lib/nats-errors'
import { BridgeClient } from './services/bridge/client'
import { bridgeErrors } from './services/bridge/errors'
import { cliError } from './services/cli/cli-error'
import { cliErrors } from './services/cli/errors'
import type { MenuContext as AnyMenuContext, MenuItem as AnyMenuItem } from './services/cli/menu-context'
import { bindingOf } from './services/cli/plugin-binding'
import { wireCli, wiring } from './services/cli/wiring'
import type { CliPluginRuntime } from './services/plugins/contract'
import { pluginsErrors } from './services/plugins/errors'
import type { PluginApi } from './services/plugins/plugin-api'
import { serversErrors } from './services/servers/errors'
import { settingsErrors } from './services/settings/errors'

// The codes a CLI process raises itself, with no manager (no kernel) at hand: its own, a bad
// plugin name, a missing setting, a server held from here, the bridge's and NATS's as a client.
// bin/run.js loads this module first, so every CLI process knows them.
knowErrors(cliErrors, pluginsErrors, serversErrors, settingsErrors, bridgeErrors, natsErrors)

// The CLI's composition root: what runs in a CLI process besides its commands, handed to the CLI
// (which imports no other service). The manager, the plugins' runtime and the supervision client
// load on first use: a command that only asks the running manager never needs them.
let cliLogger: Logger | undefined
let pluginRuntime: CliPluginRuntime | undefined
wireCli({
  connect: (dataDir) => BridgeClient.connect(dataDir),
  createManager: (options) => (require('./manager') as typeof import('./manager')).createManager(options),
  plugins() {
    if (pluginRuntime) return pluginRuntime
    const { createCliRuntime } =
      require('./services/plugins/cli-runtime') as typeof import('./services/plugins/cli-runtime')
    pluginRuntime = createCliRuntime({
      sdk: () => ({ sdk: require('./index'), web: () => require('./web'), cli: () => require('./cli') }),
      logger(dataDir) {
        const { createLogger, isLogLevel } = require('./services/log/logger') as typeof import('./services/log/logger')
        const level = process.env.SM_LOG_LEVEL
        cliLogger ??= createLogger({
          file: logFile(dataDir),
          consoleLevel: isLogLevel(level) ? level : 'warn',
        })
        return cliLogger
      },
    })
    return pluginRuntime
  },
  holdRun: (dataDir, server, handlers) =>
    (require('./services/servers/supervisor/hold') as typeof import('./services/servers/supervisor/hold')).holdRun(
      dataDir,
      server,
      handlers,
    ),
})

export type { PluginManagerApi, PromptQuestion } from './services/cli/menu-context'
/** What a menu item's handler gets: `ctx.obj.bsm` is the plugin's `this.api`. */
export type MenuContext = AnyMenuContext<PluginApi>
/** An item of the interactive menu, from a plugin's `getCliMenuItems()`. */
export type MenuItem = AnyMenuItem<PluginApi>
export { Args, Flags }

/** How long a plugin's command may run unless its class says otherwise (`static timeout`). */
const DEFAULT_COMMAND_TIMEOUT_S = 600

/**
 * The base of a plugin's commands: an oclif command (`static summary`, `flags`, `args`,
 * `examples`, `this.parse`, `this.log`) with `this.api`, the plugin's own gateway to the
 * manager. Give it a `static id`; return it (or a topic holding it) from `getCliCommands()`.
 */
export abstract class Command extends OclifCommand {
  /**
   * `true`: `this.api` works on a manager booted in this process even while one runs (for
   * `runTask` with a function). Default: the running manager, as its client, or an in-process
   * one when none runs.
   */
  static local?: boolean

  /**
   * The longest `run()` may take, in seconds (default 600; 0: no limit, for a command that
   * follows something until Ctrl-C). Past it the command fails with
   * SM_ERR_CLI_PLUGIN_COMMAND_TIMEOUT (exit 75); when its code holds the event loop, a watcher
   * thread prints that error and kills the process (SIGKILL).
   */
  static timeout?: number

  /** Bounds `run()` by the command's timeout (a plugin's command runs in the user's process, not in a thread). */
  override async init(): Promise<void> {
    await super.init()
    const binding = bindingOf(this.constructor)
    if (!binding) return
    const command = (this.id ?? this.constructor.name).replaceAll(':', ' ')
    const declared = (this.constructor as typeof Command).timeout
    if (declared !== undefined && !(typeof declared === 'number' && Number.isFinite(declared) && declared >= 0))
      throw new SmError('SM_ERR_CLI_PLUGIN_COMMAND_FAILED', {
        plugin: binding.plugin,
        command,
        reason: 'its static timeout must be a number of seconds (0: no limit)',
      })
    const seconds = declared ?? DEFAULT_COMMAND_TIMEOUT_S
    const run = this.run.bind(this)
    this.run = () =>
      wiring()
        .plugins()
        .guard(
          () => new SmError('SM_ERR_CLI_PLUGIN_COMMAND_TIMEOUT', { plugin: binding.plugin, command, seconds }),
          { deadlineMs: seconds * 1000 },
          async () => run(),
        )
  }

  /** The plugin's `this.api`, acting as `plugin:<name>`; it connects on first use. */
  get api(): PluginApi {
    const binding = bindingOf(this.constructor)
    if (!binding) throw new SmError('SM_ERR_CLI_NO_PLUGIN_API', { command: this.id ?? this.constructor.name })
    // The CLI keeps it untyped (it does not import the plugins service's code); it is the PluginApi the plugins service made.
    return binding.api as PluginApi
  }

  /** Prints a value as indented JSON (for a `--json` flag). */
  protected printJson(value: unknown): void {
    this.log(JSON.stringify(value, null, 2))
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    const plugin = bindingOf(this.constructor)?.plugin ?? 'unknown'
    const command = (this.id ?? '').replaceAll(':', ' ')
    const own = error instanceof SmError || (error instanceof Errors.CLIError && error.constructor.name !== 'CLIError')
    const coded = own
      ? (cliError(error) ?? toSmError(error))
      : new SmError('SM_ERR_CLI_PLUGIN_COMMAND_ERROR', { plugin, command, reason: error?.message ?? String(error) })
    this.logToStderr(errorLine(coded))
    if (process.env.DEBUG && error?.stack) this.logToStderr(error.stack)
    // `this.error(message, { exit })` keeps the exit code the plugin chose.
    const chosen = own ? undefined : (error as { oclif?: { exit?: unknown } }).oclif?.exit
    return this.exit(typeof chosen === 'number' && chosen > 0 ? chosen : coded.exitCode)
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    await bindingOf(this.constructor)?.session.release()
    return super.finally(error)
  }
}
