import type { Command } from '@oclif/core/command'
import { type Config, Plugin } from '@oclif/core/config'
import type * as Interfaces from '@oclif/core/interfaces'
import { SmError } from '../../kernel/errors'
import { resolveDataDir } from '../../lib/data-dir'
import type { CliContribution, HostedPlugin } from '../plugins/contract'
import { bindCommand } from './plugin-binding'
import { CliSession } from './session'
import { wiring } from './wiring'

export type { HostedPlugin }

/** The plugins whose contributions this process shows, and those that no longer import. */
export interface PluginCommands {
  readonly contributions: readonly CliContribution[]
  readonly broken: readonly CliContribution[]
}

let current: PluginCommands = { contributions: [], broken: [] }

/** What `attachPluginCommands` found (the menu lists their items; the not-found hook names broken ones). */
export function pluginCommands(): PluginCommands {
  return current
}

/**
 * Adds the enabled plugins' commands and topics to oclif's config, from the cache the plugins
 * service writes (<data dir>/cache/cli.json) — no plugin code runs for `--help`. An entry whose
 * plugin files changed since (or that another version wrote) is rebuilt by importing that plugin
 * here; one that no longer imports is left out, with a warning, and running one of its
 * commands names the import error. `warn` prints why a plugin adds nothing (for help listings).
 */
export async function attachPluginCommands(
  config: Config,
  options: { dataDir?: string; warn?: boolean } = {},
): Promise<PluginCommands> {
  const dataDir = options.dataDir ?? resolveDataDir()
  const runtime = wiring().plugins()
  const { entries, unwritten } = await runtime.current(dataDir, config.version, () => new CliSession({}, dataDir))
  // Nothing is lost (the cache only saves work), but listings say so.
  if (unwritten && options.warn) warn(`${unwritten}; it is rebuilt on each run`)
  const builtin = {
    commands: new Set(config.commands.map((c) => c.id)),
    topics: new Set(config.topics.map((t) => t.name)),
  }
  const accepted: CliContribution[] = []
  const broken: CliContribution[] = []
  for (const entry of entries) {
    if (entry.error) {
      broken.push(entry)
      if (options.warn) warn(`the plugin '${entry.plugin}' adds no commands now: ${entry.error.message}`)
      continue
    }
    try {
      runtime.checkConflicts(entry, builtin, accepted)
      accepted.push(entry)
    } catch (error) {
      warn((error as Error).message)
    }
  }
  current = { contributions: accepted, broken }
  const commands = accepted.flatMap((entry) => entry.commands.map((command) => loadable(entry, command)))
  if (commands.length > 0) {
    const topics = accepted.flatMap((entry) => entry.topics.filter((t) => t.description !== undefined))
    const plugin = new RuntimePlugin(config.root, commands, topics as Interfaces.Topic[])
    await plugin.load()
    config.plugins.set(plugin.name, plugin)
  }
  return current
}

/** What a hosted plugin's getCliMenuItems() returns (`[]` when it has none). */
export function menuItems(hosted: HostedPlugin): unknown[] {
  return wiring().plugins().menuItems(hosted)
}

/** A cached command that imports its plugin only when it runs. */
function loadable(entry: CliContribution, command: Command.Cached): Command.Loadable {
  const id = command.id
  return {
    ...command,
    pluginName: RUNTIME,
    pluginAlias: RUNTIME,
    pluginType: 'user',
    async load() {
      const failed = (reason: string, cause?: unknown) =>
        new SmError(
          'SM_ERR_CLI_PLUGIN_COMMAND_FAILED',
          { plugin: entry.plugin, command: id.replaceAll(':', ' '), reason },
          { cause },
        )
      const session = CliSession.shared ?? new CliSession({ local: (command as { local?: boolean }).local === true })
      let cls: Command.Class | undefined
      let hosted: HostedPlugin
      try {
        hosted = await host(entry, session)
        cls = wiring().plugins().commandClass(hosted, id)
      } catch (error) {
        throw failed((error as Error).message, error)
      }
      if (!cls) throw failed('the plugin no longer returns it from getCliCommands()')
      bindCommand(cls, { plugin: entry.plugin, api: hosted.api, session })
      cls.id = id
      return cls
    },
  }
}

const RUNTIME = 'server-manager-plugins'

/** The enabled plugins' commands as one oclif plugin, built in memory (stack-notes.md, section 2). */
class RuntimePlugin extends Plugin {
  readonly #commands: Command.Loadable[]
  readonly #topics: Interfaces.Topic[]

  constructor(root: string, commands: Command.Loadable[], topics: Interfaces.Topic[]) {
    super({ root, name: RUNTIME, type: 'user' })
    this.#commands = commands
    this.#topics = topics
  }

  override get topics(): Interfaces.Topic[] {
    return this.#topics
  }

  override async load(): Promise<void> {
    this.type = 'user'
    this.name = RUNTIME
    this.alias = RUNTIME
    this.version = '0.0.0'
    this.root = this.options.root
    this.isRoot = false
    this.valid = true
    this.hooks = {}
    this.moduleType = 'commonjs'
    this.pjson = { name: RUNTIME, version: this.version, oclif: {} } as Interfaces.PJSON
    this.commands = this.#commands
    this.commandIDs = this.#commands.map((c) => c.id)
  }

  override async findCommand(id: string, opts?: { must: boolean }): Promise<Command.Class> {
    const command = this.#commands.find((c) => c.id === id)
    if (!command && opts?.must) throw new SmError('SM_ERR_CLI_UNKNOWN_COMMAND', { command: id, hint: '' })
    return command?.load() as Promise<Command.Class>
  }
}

/** Imports a plugin in this process, with a `this.api` acting as `plugin:<name>` through `session`. */
export function host(entry: CliContribution, session: CliSession): Promise<HostedPlugin> {
  return wiring().plugins().host(entry, session)
}

function warn(message: string): void {
  process.stderr.write(`Warning: ${message}\n`)
}
