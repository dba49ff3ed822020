import { defineActions } from '../../kernel/action-catalogue'
import type { SettingUpdate } from './contract'

declare module '../../kernel/maps' {
  interface ActionMap {
    /** A global setting changes (set, merged, replaced or unset). */
    setting_update: SettingUpdate
  }
}

export const settingsActions = defineActions('settings', {
  setting_update: { identity: ['key'], summary: 'a global setting changes (set, merged, replaced or unset)' },
})

/** The actions this service declares (their payload types). */
export type SettingsActions = Pick<import('../../kernel/maps').ActionMap, 'setting_update'>
