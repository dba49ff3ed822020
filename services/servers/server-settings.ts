import { reasonOf, SmError } from '../../kernel/errors'
import { measureJson } from '../../lib/json-value'
import { settingKeyProblem } from '../../lib/setting-key'
import type { ServerRecord, ServerSettingView } from './contract'

/** One per-server setting: its default, and for the policy ones the global setting it overrides. */
interface ServerSettingSpec {
  readonly default: unknown
  /** When unset, the value of this global setting applies. */
  readonly inherits?: string
  readonly summary: string
  /** What its values are (a form draws a yes/no choice or a number field from it), and their check. */
  readonly type: ServerSettingType
}

/** The kind of a per-server setting's values, with their check. */
interface ServerSettingType {
  readonly kind: 'boolean' | 'integer'
  readonly check: (value: unknown) => string | undefined
}

const bool: ServerSettingType = {
  kind: 'boolean',
  check: (value) => (typeof value === 'boolean' ? undefined : 'it must be true or false'),
}
const whole = (min: number, max: number): ServerSettingType => ({
  kind: 'integer',
  check: (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      ? undefined
      : `it must be a whole number from ${min} to ${max}`,
})

/**
 * The settings each server has (docs/settings.md, "Per-server settings"); plugins add theirs
 * under `custom.`. A Map, so a key named like an Object method (`valueOf`) is just unknown.
 */
const SERVER_SETTINGS: ReadonlyMap<string, ServerSettingSpec> = new Map(
  Object.entries({
    autostart: { default: false, summary: 'start it when the manager starts (the autostart plugin)', type: bool },
    'restart.enabled': {
      default: undefined,
      inherits: 'servers.restart.enabled',
      summary: 'restart it after a crash',
      type: bool,
    },
    'restart.max_restarts': {
      default: undefined,
      inherits: 'servers.restart.max_restarts',
      summary: 'crash restarts in a row before it is left crashed',
      type: whole(0, 1_000),
    },
    'restart.min_uptime_s': {
      default: undefined,
      inherits: 'servers.restart.min_uptime_s',
      summary: 'a run this long ends a crash streak',
      type: whole(0, 86_400),
    },
    memory_mb: {
      default: undefined,
      summary: 'the Java heap of a java server, in MB (-Xms and -Xmx; unset: the JVM default, or its own --arg flags)',
      type: whole(128, 1_048_576),
    },
    'backup.hot': {
      default: undefined,
      inherits: 'servers.backup.hot',
      summary: 'back it up hot while it runs, where its profile can',
      type: bool,
    },
    'retention.backups': {
      default: undefined,
      inherits: 'retention.backups',
      summary: 'backups of each kind kept (and as many safety copies); older ones are deleted after each backup',
      type: whole(1, 10_000),
    },
    'retention.backup_days': {
      default: undefined,
      inherits: 'retention.backup_days',
      summary: 'also delete its backups older than this many days (0: no age limit)',
      type: whole(0, 36_500),
    },
  } satisfies Record<string, ServerSettingSpec>),
)

export type ServerSettings = Readonly<Record<string, unknown>>

/**
 * The largest value a server's `custom.<key>` may hold, as UTF-8 JSON, and the most custom keys a
 * server may have: a server's settings travel in its record, in every list of servers and every
 * fact about it, so they are bounded far below a global setting's 1 MiB.
 */
export const MAX_CUSTOM_VALUE_BYTES = 16 * 1024
export const MAX_CUSTOM_KEYS = 100

/**
 * Checks a per-server setting change; `custom.<key>` takes any plain JSON value of at most
 * 16 KiB, its key named as a global setting's is (lib/setting-key.ts: no `__proto__`).
 */
export function checkServerSetting(server: string, key: string, value: unknown): void {
  if (typeof key !== 'string' || key === '') throw invalid(server, String(key), 'the key is empty')
  if (key.startsWith('custom.')) {
    const problem = settingKeyProblem(key)
    if (problem) throw invalid(server, key, `the key cannot be used: ${problem}`)
    if (value === undefined) return
    try {
      measureJson(value, MAX_CUSTOM_VALUE_BYTES)
    } catch (error) {
      throw invalid(
        server,
        key,
        `${reasonOf(error)} (a server's custom value: at most ${MAX_CUSTOM_VALUE_BYTES / 1024} KiB of JSON)`,
      )
    }
    return
  }
  const spec = SERVER_SETTINGS.get(key)
  if (!spec)
    throw invalid(
      server,
      key,
      `there is no such server setting (${[...SERVER_SETTINGS.keys(), 'custom.<key>'].join(', ')})`,
    )
  if (value === undefined) return
  const problem = spec.type.check(value)
  if (problem) throw invalid(server, key, problem)
}

/** Checks that `server` holds at most MAX_CUSTOM_KEYS custom values once `keys` are set (or unset, with `value` undefined). */
export function checkCustomCount(server: ServerRecord, changes: readonly (readonly [string, unknown])[]): void {
  const keys = new Set(Object.keys(server.settings ?? {}).filter((key) => key.startsWith('custom.')))
  for (const [key, value] of changes)
    if (key.startsWith('custom.')) value === undefined ? keys.delete(key) : keys.add(key)
  if (keys.size > MAX_CUSTOM_KEYS)
    throw invalid(server.name, 'custom', `a server holds at most ${MAX_CUSTOM_KEYS} custom values (unset some first)`)
}

/** A server's setting in effect: its own value, else the global one it inherits, else the default. */
export async function serverSetting(
  server: ServerRecord,
  key: string,
  global: (key: string) => Promise<unknown>,
): Promise<unknown> {
  const own = server.settings && Object.hasOwn(server.settings, key) ? server.settings[key] : undefined
  if (own !== undefined) return own
  const spec = SERVER_SETTINGS.get(key)
  if (spec?.inherits) return global(spec.inherits)
  return spec?.default
}

/** Every declared setting in effect, plus the custom ones it has. */
export async function allServerSettings(
  server: ServerRecord,
  global: (key: string) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const all: Record<string, unknown> = Object.create(null)
  for (const key of SERVER_SETTINGS.keys()) all[key] = await serverSetting(server, key, global)
  for (const [key, value] of Object.entries(server.settings ?? {})) if (key.startsWith('custom.')) all[key] = value
  return all
}

/** Every declared setting of a server, with where its value comes from, and the custom ones it has. */
export async function serverSettingViews(
  server: ServerRecord,
  global: (key: string) => Promise<unknown>,
): Promise<ServerSettingView[]> {
  const own = (key: string) => Boolean(server.settings && Object.hasOwn(server.settings, key))
  const views: ServerSettingView[] = []
  for (const [key, spec] of SERVER_SETTINGS)
    views.push({
      key,
      value: await serverSetting(server, key, global),
      own: own(key),
      inherits: spec.inherits,
      summary: spec.summary,
      kind: spec.type.kind,
    })
  for (const [key, value] of Object.entries(server.settings ?? {}))
    if (key.startsWith('custom.'))
      views.push({ key, value, own: true, inherits: undefined, summary: 'a plugin value', kind: 'json' })
  return views
}

function invalid(server: string, key: string, reason: string): SmError {
  return new SmError('SM_ERR_SERVER_SETTING_INVALID', { server, key, reason })
}
