import './actions'
import './errors'
import { mkdirSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { type BusScope, performAction, reasonOf, type Service, SmError } from '../../kernel'
import type { Sql } from '../events/contract'
import type { SettingChange, SettingMode } from './contract'
import { DeclaredSettings } from './declared'
import { deepMerge, parseKey, type Tree } from './dot-path'
import { readAll, readStored, settingsProjection, storedKeys } from './settings-projection'
import { validateSetting } from './validate'

export type * from './contract'
export { openDataDir, PRIVATE_UMASK, resolveDataDir } from './data-dir'

type Read = <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>

/**
 * Global settings: a projection of the event log, read with the declared defaults merged in,
 * changed only through the `before_setting_update` / `after_setting_update` action so every
 * change is a recorded, vetoable fact. Each service declares its own settings
 * (`defineSettings`); anything else lives under `custom.*`.
 */
export function settingsService(): Service {
  return {
    name: 'settings',
    dependsOn: ['events'],
    async start({ bus, config }) {
      const declared = new DeclaredSettings({ dataDir: config.dataDir })
      await bus.request('events:register_projection', { projection: settingsProjection })
      const read: Read = (fn) =>
        bus.request('events:read_projection', { projection: settingsProjection.name, read: fn }) as never
      const get = async (key: string): Promise<unknown> => {
        const segments = parseKey(key)
        declared.assertKnown(key, segments)
        return deepMerge(declared.defaultAt(segments), await read((sql) => readStored(sql, segments)))
      }

      bus.handle('settings:get', async ({ key }) => {
        const value = await get(key)
        return value === undefined ? { found: false } : { found: true, value }
      })
      bus.handle('settings:get_all', async () => deepMerge(declared.defaults, await read(readAll)) as Tree)
      bus.handle('settings:set', ({ key, value, mode }) =>
        change(bus, read, get, key, mode === 'replace' ? 'replace' : 'merge', (segments) =>
          validateSetting(key, segments, value, declared),
        ),
      )
      bus.handle('settings:unset', async ({ key }) => {
        const segments = parseKey(key)
        declared.assertKnown(key, segments)
        // Nothing stored under custom means nothing to unset: the same answer as a get.
        if (segments[0] === 'custom' && (await read((sql) => storedKeys(sql, key))).length === 0)
          throw new SmError('SM_ERR_SETTINGS_NOT_FOUND', { key })
        return change(bus, read, get, key, 'unset', () => undefined)
      })
      bus.handle('settings:path', async ({ name }) => {
        const configured = String(await get(`paths.${name}`))
        const path = isAbsolute(configured) ? configured : resolve(config.dataDir, configured)
        try {
          mkdirSync(path, { recursive: true })
        } catch (error) {
          throw new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path, reason: reasonOf(error) }, { cause: error })
        }
        return { path }
      })
    },
  }
}

/** One change as the setting_update action; resolves to what it did. */
async function change(
  bus: BusScope,
  read: Read,
  get: (key: string) => Promise<unknown>,
  key: string,
  mode: SettingMode,
  validate: (segments: string[]) => unknown,
): Promise<SettingChange> {
  const segments = parseKey(key)
  const previous = await get(key)
  const value = validate(segments)
  const before = mode === 'merge' ? [] : await read((sql) => storedKeys(sql, key))
  const outcome = await performAction(bus, {
    before: 'before_setting_update',
    after: 'after_setting_update',
    payload: { key, value, previous, mode },
    // The change itself is the after_setting_update fact: the projection applies it as it is appended.
    perform: async () => undefined,
    message: () => `Global setting '${key}' ${mode === 'unset' ? 'unset' : 'updated'}.`,
  })
  if (outcome.status === 'cancelled') {
    throw new SmError('SM_ERR_SETTINGS_UPDATE_CANCELLED', { key, by: outcome.by, reason: outcome.reason })
  }
  if (outcome.status === 'error') throw outcome.error
  const after = new Set(mode === 'merge' ? [] : await read((sql) => storedKeys(sql, key)))
  return { key, value: await get(key), previous, mode, removed: before.filter((k) => !after.has(k)) }
}
