import { isDeepStrictEqual } from 'node:util'
import { type BusScope, type EventMap, type Logger, SmError } from '../../kernel'
import type { Projections } from '../events/contract'
import type { PluginError, PluginRecord } from './contract'
import { writeRegistryFile } from './registry-file'
import { type PLUGIN_FACTS, readAllRecords, registryProjection, type StoredRecord } from './registry-projection'

/** What discovery found of a plugin, as its `plugins:discovered` fact records it. */
export interface Found {
  readonly name: string
  readonly source: PluginRecord['source']
  readonly path: string
  readonly hash: string
  readonly version?: string
  readonly author?: string
  readonly description?: string
  readonly enabledByDefault?: boolean
  readonly requires?: readonly string[]
  readonly secretSettings?: readonly string[] | false
  readonly methods?: readonly string[]
}

/**
 * The plugin registry as the manager reads and changes it: its records (a projection of the
 * plugin facts), the facts it records, each only when it changes what the registry says, and
 * plugins.json, its mirror.
 */
export class RegistryFacts {
  readonly #scope: BusScope
  readonly #projections: Projections
  readonly #logger: Logger
  readonly #file: string

  constructor(scope: BusScope, projections: Projections, logger: Logger, file: string) {
    this.#scope = scope
    this.#projections = projections
    this.#logger = logger
    this.#file = file
  }

  /** Every plugin's record: a view (from memory until a plugin fact or another process changes them), frozen. */
  records(): Promise<readonly StoredRecord[]> {
    return this.#projections.view(registryProjection.name, readAllRecords)
  }

  /** A known plugin (also one whose files are gone: it can still be inspected and disabled), or SM_ERR_PLUGIN_NOT_FOUND. */
  async record(name: string): Promise<StoredRecord> {
    const record = (await this.records()).find((r) => r.name === name)
    if (!record) throw new SmError('SM_ERR_PLUGIN_NOT_FOUND', { plugin: name })
    return record
  }

  async fact<K extends (typeof PLUGIN_FACTS)[number]>(type: K, payload: EventMap[K]): Promise<void> {
    await this.#scope.emit(type as 'plugins:loaded', payload as EventMap['plugins:loaded'])
  }

  /** Records what discovery found unless the record says it already; resolves to whether it did. */
  async discovered(
    record: StoredRecord | undefined,
    found: Found,
    { valid = false }: { valid?: boolean } = {},
  ): Promise<boolean> {
    const fact = {
      name: found.name,
      version: found.version ?? record?.version ?? '',
      author: found.author ?? record?.author ?? 'unknown',
      description: found.description ?? record?.description ?? '',
      source: found.source,
      path: found.path,
      hash: found.hash,
      enabledByDefault: found.enabledByDefault ?? false,
      ...(found.requires ? { requires: [...found.requires] } : {}),
      ...(found.requires && found.secretSettings !== undefined
        ? { secretSettings: found.secretSettings === false ? (false as const) : [...found.secretSettings] }
        : {}),
      ...(found.methods ? { methods: [...found.methods] } : {}),
    }
    const same =
      record &&
      record.state !== 'missing' &&
      !(valid && record.state === 'invalid') &&
      (['version', 'author', 'description', 'source', 'path', 'hash'] as const).every(
        (key) => record[key] === fact[key],
      ) &&
      // Statics not recorded yet (an older log): recorded now, so the next start need not import it.
      (found.requires === undefined || record.requires !== undefined) &&
      // What its class defines may change without its files (a base class elsewhere): a reload records it.
      (found.methods === undefined || isDeepStrictEqual(record.methods, found.methods))
    if (same) return false
    await this.fact('plugins:discovered', fact)
    return true
  }

  /** Records that a plugin failed (`invalid`: it is not a plugin at all), unless it is recorded so already. */
  async failed(record: PluginRecord | undefined, name: string, error: SmError, invalid: boolean): Promise<void> {
    const code = error instanceof SmError ? error.code : 'SM_ERR_INTERNAL'
    const failure: PluginError = { code, message: error.message }
    const state = invalid ? 'invalid' : 'failed'
    if (record?.state === state && record.error?.code === code && record.error.message === failure.message) return
    this.#logger.warn(`plugin '${name}' ${state}: ${failure.message}`, { code })
    await this.fact('plugins:failed', { name, invalid, error: failure })
  }

  /** Rewrites plugins.json from `records` (read now when not given). */
  async writeFile(records?: readonly StoredRecord[]): Promise<void> {
    writeRegistryFile(this.#file, records ?? (await this.records()), this.#logger)
  }
}
