import { type ActionsOf, defineActions } from '../../kernel/action-catalogue'
import { settingUpdate } from './contract'

export const settingsActions = defineActions('settings', {
  /** A global setting changes (set, merged, replaced or unset). */
  setting_update: {
    payload: settingUpdate,
    identity: ['key'],
    summary: 'a global setting changes (set, merged, replaced or unset)',
  },
})

declare module '../../kernel/maps' {
  interface ActionMap extends ActionsOf<typeof settingsActions> {}
}

/** The actions this service declares (their payload types). */
export type SettingsActions = ActionsOf<typeof settingsActions>
