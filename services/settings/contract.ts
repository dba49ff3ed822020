import type { ActionResult } from '../../kernel'

/** A change to one global setting. */
export interface SettingUpdate {
  /** Dot path, e.g. `web.port` or `custom.greeting`. */
  readonly key: string
  readonly value: unknown
  /** The value before the change (stored or default), when there was one. */
  readonly previous?: unknown
}

declare module '../../kernel/maps' {
  interface EventMap {
    /** Before a global setting changes; a listener may veto with `{ cancel: true, reason }`. */
    before_setting_update: SettingUpdate
    /** After a global setting change was attempted (recorded in the event log). */
    after_setting_update: SettingUpdate & { readonly result: ActionResult }
  }

  interface CommandMap {
    /** The value at a dot path (stored, else the default); `found` is false when neither exists. */
    'settings:get': { payload: { key: string }; reply: { found: boolean; value?: unknown } }
    /** Every setting, defaults merged with what is stored. */
    'settings:get_all': { payload: Record<string, never>; reply: Record<string, unknown> }
    /** Validates and stores a value; rejects with SM_ERR_SETTINGS_* when invalid or vetoed. */
    'settings:set': { payload: { key: string; value: unknown }; reply: SettingUpdate }
    /** The absolute directory for `paths.<name>`, created on first use. */
    'settings:path': { payload: { name: string }; reply: { path: string } }
  }
}
