import { mkdirSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import {
  type BusScope,
  currentContext,
  declaredService,
  markSecretKey,
  performAction,
  reasonOf,
  type Service,
  SmError,
  unchangedOnFullDisk,
} from '../../kernel'
import { isSecretKey, REDACTED, withoutSecretSettings, withoutSecrets } from '../../lib/secrets'
import { PROJECTIONS, type Projections, type Sql } from '../events/contract'
import type { SettingChange, SettingMode } from './contract'
import { settingsDeclaration } from './declarations'
import { DeclaredSettings } from './declared'
import { deepMerge, parseKey, type Tree } from './dot-path'
import { markedSecretKeys, secretsProjection } from './secrets-projection'
import { readAll, readStored, settingsProjection, storedKeys } from './settings-projection'
import { validateSetting } from './validate'

export type * from './contract'

type Read = <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>

/**
 * Global settings: a projection of the event log, read with the declared defaults merged in,
 * changed only through the `before_setting_update` / `after_setting_update` action so every
 * change is a recorded, vetoable fact. Each service declares its own settings
 * (`defineSettings`); anything else lives under `custom.*`.
 */
export function settingsService(): Service {
  return {
    ...declaredService(settingsDeclaration),
    async start({ bus, config, registry }) {
      const declared = new DeclaredSettings({ dataDir: config.dataDir }, bus.catalogue.settings())
      const projections = registry.resolve(PROJECTIONS)
      await projections.register(settingsProjection)
      const read: Read = (fn) => projections.read(settingsProjection.name, fn)
      const get = async (key: string): Promise<unknown> => {
        const segments = parseKey(key)
        declared.assertKnown(key, segments)
        return deepMerge(declared.defaultAt(segments), await read((sql) => readStored(sql, segments)))
      }

      const secrets = await loadSecrets(bus, projections)
      // Marked in another process (a CLI next to this manager): known here as the log is followed.
      bus.on('events:appended', ({ events }) => {
        for (const event of events)
          if (event.type === 'settings:marked_secret') secrets.learn((event.payload as { key: string }).key)
      })
      const markSecret = async (keys: readonly string[]): Promise<string[]> => {
        const fresh = [...new Set(keys)].filter((key) => {
          declared.assertKnown(key, parseKey(key))
          return !secrets.recorded.has(key)
        })
        for (const key of fresh) {
          // Hidden from this moment, before any listener of the fact or of a change runs.
          secrets.learn(key)
          await bus.emit('settings:marked_secret', { key, by: currentContext().actor }).catch((error: unknown) => {
            // Not recorded (a full disk): marked again next time. It stays hidden here, which is safe.
            secrets.recorded.delete(key)
            throw unchangedOnFullDisk(error, `the setting '${key}' is not marked secret and keeps the value it had`)
          })
        }
        return fresh
      }

      bus.handle('settings:get', async ({ key, redact }) => {
        const value = await get(key)
        const secret = isSecretKey(key) ? { secret: true } : {}
        if (value === undefined) return { found: false, ...secret }
        return { found: true, value: redact ? withoutSecretSettings(value, key, redact) : value, ...secret }
      })
      bus.handle('settings:get_all', async (payload) => {
        const redact = payload?.redact
        const all = deepMerge(declared.defaults, await read(readAll)) as Tree
        return redact ? (withoutSecretSettings(all, '', redact) as Tree) : all
      })
      bus.handle('settings:describe', () =>
        bus.catalogue.settings().map(({ key, owner, spec }) => {
          const unit = unitOf(key)
          const secret = spec.secret === true || isSecretKey(key)
          const value = declared.defaultAt(key.split('.'))
          return {
            key,
            summary: spec.summary,
            default: secret && value !== '' && value !== undefined ? REDACTED : value,
            ...(unit ? { unit } : {}),
            secret,
            owner,
          }
        }),
      )
      bus.handle('settings:mark_secret', async ({ keys }) => ({ marked: await markSecret(keys) }))
      bus.handle('settings:set', async ({ key, value, mode, secret }) => {
        if (secret === true) await markSecret([key])
        return change(bus, read, get, key, mode === 'replace' ? 'replace' : 'merge', (segments) =>
          validateSetting(key, segments, value, declared),
        )
      })
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
    factIsTheWork: true,
  }).catch((error: unknown) => {
    throw unchangedOnFullDisk(error, `the setting '${key}' keeps the value it had`)
  })
  if (outcome.status === 'cancelled') {
    throw new SmError('SM_ERR_SETTINGS_UPDATE_CANCELLED', { key, by: outcome.by, reason: outcome.reason })
  }
  if (outcome.status === 'error') throw outcome.error
  const after = new Set(mode === 'merge' ? [] : await read((sql) => storedKeys(sql, key)))
  // The caller knows what it set; whoever it shows the change to must not see a secret.
  const done = { key, value: await get(key), previous, mode, removed: before.filter((k) => !after.has(k)) }
  return withoutSecrets(done) as SettingChange
}

/**
 * The keys marked secret in this data directory: made known to this process's redaction
 * (`markSecretKey`) at start and whenever one is marked; `recorded` is what the log holds.
 */
async function loadSecrets(
  bus: BusScope,
  projections: Projections,
): Promise<{ recorded: Set<string>; learn(key: string): void }> {
  await projections.register(secretsProjection)
  await bus.request('events:declare_facts', { types: ['settings:marked_secret'] })
  const keys = await projections.read(secretsProjection.name, markedSecretKeys)
  const recorded = new Set(keys)
  for (const key of keys) markSecretKey(key)
  return {
    recorded,
    learn(key) {
      recorded.add(key)
      markSecretKey(key)
    },
  }
}

/** A setting's unit, as its name says it (`web.max_body_kb`: KB); none when it says none. */
function unitOf(key: string): string | undefined {
  const suffix = /_(ms|s|minutes|hours|days|kb|mb|gb|percent)$/.exec(key)?.[1]
  return suffix === undefined
    ? undefined
    : {
        ms: 'milliseconds',
        s: 'seconds',
        minutes: 'minutes',
        hours: 'hours',
        days: 'days',
        kb: 'KB',
        mb: 'MB',
        gb: 'GB',
        percent: '%',
      }[suffix]
}
