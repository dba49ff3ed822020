import { existsSync } from 'node:fs'
import { reasonOf, SmError } from '../../kernel/errors'
import type { Logger } from '../../kernel/logger'
import {
  checkCliConflicts,
  cliCacheFile,
  commandClasses,
  contributionOf,
  readCliCache,
  writeCliCache,
} from './cli-contributions'
import { guardCliRun } from './cli-guard'
import type { CliContribution, CliHostSession, CliPluginRuntime, HostedPlugin } from './contract'
import { extensionOf } from './extension'
import { hashOf } from './fingerprint'

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
