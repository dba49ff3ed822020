import './errors'
import { mkdirSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { type BusScope, performAction, reasonOf, type Service, SmError } from '../../kernel'
import type { Sql } from '../events/contract'
import { defaultSettings, PATH_NAMES } from './defaults'
import { deepMerge, getPath, parseKey, type Tree } from './dot-path'
import { readAll, readSection, settingsProjection } from './settings-projection'
import { validateSetting } from './validate'

export type * from './contract'
export { resolveDataDir } from './data-dir'

/**
 * Global settings: a projection of the event log, read with defaults merged in, changed only
 * through the `before_setting_update` / `after_setting_update` action so every change is a
 * recorded, vetoable fact.
 */
export function settingsService(): Service {
  return {
    name: 'settings',
    dependsOn: ['events'],
    async start({ bus, config }) {
      const defaults = defaultSettings(config.dataDir)
      await bus.request('events:register_projection', { projection: settingsProjection })
      const read = <T>(fn: (sql: Sql) => Promise<T>) =>
        bus.request('events:read_projection', { projection: settingsProjection.name, read: fn }) as Promise<T>

      const get = async (key: string) => {
        const segments = parseKey(key)
        const section = await read((sql) => readSection(sql, segments[0] as string))
        return deepMerge(getPath(defaults, segments), getPath({ [segments[0] as string]: section }, segments))
      }

      bus.handle('settings:get', async ({ key }) => {
        const value = await get(key)
        return value === undefined ? { found: false } : { found: true, value }
      })
      bus.handle('settings:get_all', async () => deepMerge(defaults, await read(readAll)) as Tree)
      bus.handle('settings:set', ({ key, value }) => setSetting(bus, defaults, get, key, value))
      bus.handle('settings:path', async ({ name }) => {
        if (!(PATH_NAMES as readonly string[]).includes(name)) {
          throw new SmError('SM_ERR_SETTINGS_INVALID_KEY', {
            key: `paths.${name}`,
            reason: `known paths are ${PATH_NAMES.join(', ')}`,
          })
        }
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

async function setSetting(
  bus: BusScope,
  defaults: Tree,
  get: (key: string) => Promise<unknown>,
  key: string,
  value: unknown,
): Promise<{ key: string; value: unknown; previous?: unknown }> {
  const segments = parseKey(key)
  const stored = validateSetting(segments, value, defaults)
  const previous = await get(key)
  const outcome = await performAction(bus, {
    before: 'before_setting_update',
    after: 'after_setting_update',
    payload: { key, value: stored, previous },
    // The change itself is the after_setting_update fact: the projection applies it as it is appended.
    perform: async () => undefined,
    message: () => `Global setting '${key}' updated.`,
  })
  if (outcome.status === 'cancelled') {
    throw new SmError('SM_ERR_SETTINGS_UPDATE_CANCELLED', { key, by: outcome.by, reason: outcome.reason })
  }
  if (outcome.status === 'error') throw outcome.error
  return { key, value: stored, previous }
}
