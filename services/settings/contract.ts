import type { SettingMarkedSecret } from './secrets-projection'

export type { SettingMarkedSecret } from './secrets-projection'

/**
 * How a change applies: `merge` lays an object over what is stored (the default; other keys
 * stay), `replace` makes the key hold exactly the value, `unset` removes what is stored (a
 * declared setting returns to its default).
 */
export type SettingMode = 'merge' | 'replace' | 'unset'

/** A change to one global setting, as hooks and the event log see it. */
export interface SettingUpdate {
  /** Dot path, e.g. `web.port` or `custom.greeting`. */
  readonly key: string
  /** The new value (absent for `unset`). A secret key's (declared, marked or named secret) shows `[redacted]` to plugins and in output. */
  readonly value: unknown
  /** The value before the change (stored or default), when there was one. */
  readonly previous?: unknown
  readonly mode?: SettingMode
}

/** What a change did. */
export interface SettingChange {
  readonly key: string
  /** The value now in effect at the key (the default after an unset). */
  readonly value: unknown
  readonly previous?: unknown
  readonly mode: SettingMode
  /** Keys that held a value before and hold none now (replace, unset). */
  readonly removed: readonly string[]
}

/**
 * How a value that leaves for people or plugins shows its secrets: `mask` replaces each with
 * `[redacted]`, `drop` leaves it out. Without it, the value is the real one (for services).
 */
export type Redaction = 'mask' | 'drop'

declare module '../../kernel/maps' {
  interface EventMap {
    /** A setting key was made secret (kept for good: its past values are in the log). */
    setting_marked_secret: SettingMarkedSecret
  }

  interface CommandMap {
    /**
     * The value at a dot path (stored, laid over the default); `found` is false when neither
     * exists; `secret` tells whether the key holds a secret. An undeclared key outside `custom`
     * is refused (SM_ERR_SETTINGS_UNKNOWN_KEY). With `redact`, secrets in it are hidden.
     */
    'settings:get': {
      payload: { key: string; redact?: Redaction }
      reply: { found: boolean; value?: unknown; secret?: boolean }
    }
    /** Every setting, defaults merged with what is stored; with `redact`, secrets hidden. */
    'settings:get_all': { payload: { redact?: Redaction }; reply: Record<string, unknown> }
    /**
     * Validates and stores a value (merging objects unless `mode` is `replace`); rejects with
     * SM_ERR_SETTINGS_* when invalid or vetoed. `secret` marks the key secret first (for good).
     * The reply shows secrets redacted.
     */
    'settings:set': {
      payload: { key: string; value: unknown; mode?: 'merge' | 'replace'; secret?: boolean }
      reply: SettingChange
    }
    /** Removes a stored value (a declared setting returns to its default). The reply shows secrets redacted. */
    'settings:unset': { payload: { key: string }; reply: SettingChange }
    /** Makes setting keys secret for good (a `setting_marked_secret` fact for each one not yet marked). */
    'settings:mark_secret': { payload: { keys: readonly string[] }; reply: { marked: string[] } }
    /** The absolute directory a `paths.*` setting names, created on first use. */
    'settings:path': { payload: { name: string }; reply: { path: string } }
  }
}
