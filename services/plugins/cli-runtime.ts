import { existsSync } from 'node:fs'
import type { Disposable } from '../../kernel/disposable'
import { reasonOf, SmError } from '../../kernel/errors'
import type { Logger } from '../../kernel/logger'
import type { CommandName, CommandPayload, CommandReply } from '../../kernel/maps'
import type { TaskContext } from '../tasks/contract'
import {
  type CliContribution,
  type CommandClass,
  checkCliConflicts,
  cliCacheFile,
  commandClasses,
  contributionOf,
  readCliCache,
  writeCliCache,
} from './cli-contributions'
import { type CliLimits, guardCliRun } from './cli-guard'
import { extensionOf } from './extension'
import { hashOf } from './fingerprint'
import type { PluginApi } from './plugin-api'
import type { PluginBase } from './plugin-base'

/**
 * How a plugin hosted in a CLI process reaches the manager (the CLI's session: the running
 * manager over the bridge, or one booted in that process), every call as `actor`.
 */
export interface CliHostSession {
  readonly dataDir: string
  /** A command of the manager as `actor`, typed by the bus's command map. */
  request<K extends CommandName>(name: K, payload: CommandPayload<K>, actor: string): Promise<CommandReply<K>>
  runTask(name: string, fn: (ctx: TaskContext) => Promise<unknown>): Promise<{ taskId: string }>
  subscribe(
    event: string,
    listener: (payload: unknown, meta: { event: string; actor: string }) => unknown,
    owner: string,
    options?: { timeoutMs?: number; guarded?: boolean },
  ): Promise<Disposable>
}

/** A plugin imported into a CLI process for its commands or menu items (never loaded: no onLoad, no hooks). */
export interface HostedPlugin {
  readonly name: string
  readonly instance: PluginBase
  readonly api: PluginApi
}

/** The enabled plugins' CLI contributions, current; `unwritten` says why the cache could not be saved. */
export interface CurrentContributions {
  readonly entries: readonly CliContribution[]
  readonly unwritten?: string
}

/**
 * What the plugins service runs in a CLI process: a plugin's commands and menu items run there
 * (never in the manager), with `this.api` over the CLI's session. The CLI's composition root
 * (cli.ts) hands it to the CLI; the CLI does not import it.
 */
export interface CliPluginRuntime {
  /** Imports one plugin here and makes its instance, with a `this.api` acting as `plugin:<name>`. */
  host(entry: CliContribution, session: CliHostSession): Promise<HostedPlugin>
  /**
   * The cache the plugins service writes (<data dir>/cache/cli.json), each entry current: one
   * whose plugin changed since (or that another `version` wrote) is described again by importing
   * it here; one that no longer imports keeps its command ids and gets the import error.
   */
  current(dataDir: string, version: string, session: () => CliHostSession): Promise<CurrentContributions>
  /** Throws SM_ERR_CLI_COMMAND_CONFLICT when `entry` claims a built-in's or an accepted plugin's command or topic. */
  checkConflicts(
    entry: CliContribution,
    builtin: { commands: ReadonlySet<string>; topics: ReadonlySet<string> },
    accepted: readonly CliContribution[],
  ): void
  /** The command class a hosted plugin's getCliCommands() returns under `id`. */
  commandClass(hosted: HostedPlugin, id: string): CommandClass | undefined
  /** What a hosted plugin's getCliMenuItems() returns (`[]` when it has none). */
  menuItems(hosted: HostedPlugin): unknown[]
  /**
   * Runs a plugin's command or menu item here within `limits`: past its deadline it rejects with
   * `timedOut()`; code that holds the event loop past it (or past `blockedMs`) ends the process
   * with that error on stderr.
   */
  guard<T>(timedOut: () => SmError, limits: CliLimits, run: () => Promise<T>): Promise<T>
}

export interface CliRuntimeOptions {
  /** What a plugin's imports resolve to, loaded when a plugin is first hosted (a listing needs none of it). */
  readonly sdk: () => { sdk: object; web: () => object; cli: () => object }
  readonly logger: (dataDir: string) => Logger
}

/**
 * The plugins' CLI runtime of one process. `sdk` is what a plugin's `import 'server-manager'`
 * (and `/web`, `/cli`) resolves to; `logger` gives the process's logger for a data directory.
 */
export function createCliRuntime(options: CliRuntimeOptions): CliPluginRuntime {
  // Loaded when a plugin must run here (the importer, jiti and the plugin API): listing the
  // cached commands needs none of it.
  let hosting: ((entry: CliContribution, session: CliHostSession) => Promise<HostedPlugin>) | undefined
  const host = (entry: CliContribution, session: CliHostSession): Promise<HostedPlugin> => {
    hosting ??= (require('./cli-host') as typeof import('./cli-host')).pluginHost(options)
    return hosting(entry, session)
  }

  /** Describes a plugin again by importing it here; a failure becomes the entry's error. */
  const rebuild = async (entry: CliContribution, session: CliHostSession): Promise<CliContribution> => {
    const base = {
      plugin: entry.plugin,
      root: entry.root,
      entry: entry.entry,
      hash: entry.hash,
      version: entry.version,
    }
    try {
      const hosted = await host(entry, session)
      return await contributionOf(
        { ...base, version: hosted.instance.version },
        {
          commands: extensionOf(hosted.instance, hosted.name, 'getCliCommands'),
          menuItems: extensionOf(hosted.instance, hosted.name, 'getCliMenuItems'),
        },
      )
    } catch (error) {
      const coded = error instanceof SmError ? error : undefined
      return {
        ...base,
        commands: [],
        topics: [],
        menuItems: [],
        // Kept to recognise its commands when someone runs one.
        knownIds: [...(entry.knownIds ?? []), ...entry.commands.map((c) => c.id)],
        error: { code: coded?.code ?? 'SM_ERR_PLUGIN_IMPORT_FAILED', message: (error as Error).message },
      }
    }
  }

  return {
    host,
    async current(dataDir, version, session) {
      const file = cliCacheFile(dataDir)
      const cached = readCliCache(file)
      const entries: CliContribution[] = []
      let rebuilt = false
      for (const entry of cached?.plugins ?? []) {
        if (!existsSync(entry.root)) {
          rebuilt = true
          continue
        }
        const hash = hashOf(entry.root)
        if (hash === entry.hash && cached?.version === version) {
          entries.push(entry)
          continue
        }
        rebuilt = true
        entries.push(await rebuild({ ...entry, hash }, session()))
      }
      if (!rebuilt) return { entries }
      try {
        writeCliCache(file, version, entries)
        return { entries }
      } catch (error) {
        // Nothing is lost (it is rebuilt next time: the cache only saves work).
        return { entries, unwritten: `the CLI cache ${file} could not be written (${reasonOf(error)})` }
      }
    },
    checkConflicts: (entry, builtin, accepted) => checkCliConflicts(entry.plugin, entry, builtin, accepted),
    commandClass: (hosted, id) =>
      commandClasses(hosted.name, extensionOf(hosted.instance, hosted.name, 'getCliCommands')).classes.get(id),
    menuItems: (hosted) => extensionOf(hosted.instance, hosted.name, 'getCliMenuItems'),
    guard: guardCliRun,
  }
}
