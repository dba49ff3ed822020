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
  /** The new value (absent for `unset`). Secret-named keys show `[redacted]` to plugins and in output. */
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

declare module '../../kernel/maps' {
  interface CommandMap {
    /**
     * The value at a dot path (stored, laid over the default); `found` is false when neither
     * exists. An undeclared key outside `custom` is refused (SM_ERR_SETTINGS_UNKNOWN_KEY).
     */
    'settings:get': { payload: { key: string }; reply: { found: boolean; value?: unknown } }
    /** Every setting, defaults merged with what is stored. */
    'settings:get_all': { payload: Record<string, never>; reply: Record<string, unknown> }
    /** Validates and stores a value (merging objects unless `mode` is `replace`); rejects with SM_ERR_SETTINGS_* when invalid or vetoed. */
    'settings:set': { payload: { key: string; value: unknown; mode?: 'merge' | 'replace' }; reply: SettingChange }
    /** Removes a stored value (a declared setting returns to its default). */
    'settings:unset': { payload: { key: string }; reply: SettingChange }
    /** The absolute directory a `paths.*` setting names, created on first use. */
    'settings:path': { payload: { name: string }; reply: { path: string } }
  }
}
