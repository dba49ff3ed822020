import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'

/** A setting key made secret (by an admin, or a plugin declaring its keys): a fact, kept for good. */
export interface SettingMarkedSecret {
  readonly key: string
  /** Who made it secret: `cli:<user>`, `http:<user>` or `plugin:<name>`. */
  readonly by: string
}

/**
 * How a change applies: `merge` lays an object over what is stored (the default; other keys
 * stay), `replace` makes the key hold exactly the value, `unset` removes what is stored (a
 * declared setting returns to its default).
 */
export const settingMode = z.enum(['merge', 'replace', 'unset'])
export type SettingMode = z.output<typeof settingMode>

/** A change to one global setting, as hooks and the event log see it (the setting_update action's payload). */
export const settingUpdate = z
  .object({
    /** Dot path, e.g. `web.port` or `custom.greeting`. */
    key: z.string(),
    /** The new value (absent for `unset`). A secret key's (declared, marked or named secret) shows `[redacted]` to plugins and in output. */
    value: z.unknown(),
    /** The value before the change (stored or default), when there was one. */
    previous: z.unknown().optional(),
    mode: settingMode.optional(),
  })
  .readonly()
export type SettingUpdate = z.output<typeof settingUpdate>

/** What a change did. */
const settingChange = z.object({
  key: z.string(),
  /** The value now in effect at the key (the default after an unset). */
  value: z.unknown(),
  previous: z.unknown().optional(),
  mode: settingMode,
  /** Keys that held a value before and hold none now (replace, unset). */
  removed: z.array(z.string()).readonly(),
})
export type SettingChange = Readonly<z.output<typeof settingChange>>

/**
 * How a value that leaves for people or plugins shows its secrets: `mask` replaces each with
 * `[redacted]`, `drop` leaves it out. Without it, the value is the real one (for services).
 */
const redaction = z.enum(['mask', 'drop'])
export type Redaction = z.output<typeof redaction>

export const settingsEvents = defineEvents(
  'settings',
  {
    /** A setting key was made secret (kept for good: its past values are in the log). */
    'settings:marked_secret': z.object({
      key: z.string(),
      /** Who made it secret: `cli:<user>`, `http:<user>` or `plugin:<name>`. */
      by: z.string(),
    }),
  },
  {
    'settings:marked_secret': 'setting_marked_secret', // formerly
  },
)

export const settingsCommands = defineCommands('settings', {
  /**
   * The value at a dot path (stored, laid over the default); `found` is false when neither
   * exists; `secret` tells whether the key holds a secret. An undeclared key outside `custom`
   * is refused (SM_ERR_SETTINGS_UNKNOWN_KEY). With `redact`, secrets in it are hidden.
   */
  'settings:get': command(
    z.object({ key: z.string(), redact: redaction.optional() }),
    z.object({ found: z.boolean(), value: z.unknown().optional(), secret: z.boolean().optional() }),
  ),
  /**
   * What each declared setting is, as its service declared it: its summary, its default (a
   * secret's redacted), its unit (read from its name: `_s` seconds, `_mb` MB…) and who declared it.
   */
  'settings:describe': command(
    empty,
    z.array(
      z.object({
        key: z.string(),
        summary: z.string(),
        default: z.unknown(),
        unit: z.string().optional(),
        secret: z.boolean(),
        owner: z.string(),
      }),
    ),
    {
      http: {
        method: 'get',
        path: '/settings/described',
        name: 'describe_settings',
        summary:
          'What each global setting is: its summary, default (secrets redacted), unit and the service that declared it',
        tags: ['Settings'],
        access: 'admin',
        key: 'settings',
        response: 'SettingDescriptions',
      },
    },
  ),
  /** Every setting, defaults merged with what is stored; with `redact`, secrets hidden. */
  'settings:get_all': command(z.object({ redact: redaction.optional() }), z.record(z.string(), z.unknown()), {
    http: {
      method: 'get',
      path: '/settings',
      name: 'list_settings',
      summary: 'Every global setting (defaults merged; secrets redacted, never revealed here)',
      tags: ['Settings'],
      access: 'admin',
      input: z.object({}),
      fixed: { redact: 'mask' },
      key: 'settings',
      response: 'SettingList',
    },
  }),
  /**
   * Validates and stores a value (merging objects unless `mode` is `replace`); rejects with
   * SM_ERR_SETTINGS_* when invalid or vetoed. `secret` marks the key secret first (for good).
   * The reply shows secrets redacted.
   */
  'settings:set': command(
    z.object({
      key: z.string(),
      value: z.unknown(),
      mode: z.enum(['merge', 'replace']).optional(),
      secret: z.boolean().optional(),
    }),
    settingChange,
  ),
  /** Removes a stored value (a declared setting returns to its default). The reply shows secrets redacted. */
  'settings:unset': command(z.object({ key: z.string() }), settingChange, {
    http: {
      method: 'delete',
      path: '/settings/:key',
      name: 'unset_setting',
      summary: 'Unset a global setting (back to its default)',
      tags: ['Settings'],
      access: 'admin',
      key: 'change',
      response: 'SettingUnset',
      errors: {
        404: 'No setting of that key (outside custom.*, only declared settings exist).',
        409: "A plugin's before_setting_update hook cancelled the change.",
        507: 'The disk that holds the data directory is full: nothing was changed.',
      },
    },
  }),
  /** Makes setting keys secret for good (a `settings:marked_secret` fact for each one not yet marked). */
  'settings:mark_secret': command(
    z.object({ keys: z.array(z.string()).readonly() }),
    z.object({ marked: z.array(z.string()) }),
  ),
  /** The absolute directory a `paths.*` setting names, created on first use. */
  'settings:path': command(z.object({ name: z.string() }), z.object({ path: z.string() })),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof settingsEvents> {}

  interface CommandMap extends CommandsOf<typeof settingsCommands> {}
}
