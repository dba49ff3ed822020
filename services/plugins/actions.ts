import { defineActions } from '../../kernel/action-catalogue'

declare module '../../kernel/maps' {
  interface ActionMap {
    /** A plugin is enabled or disabled. */
    set_plugin_status: { readonly pluginName: string; readonly enabled: boolean }
  }
}

export const pluginsActions = defineActions('plugins', {
  set_plugin_status: { identity: ['pluginName'], summary: 'a plugin is enabled or disabled' },
})

/** The actions this service declares (their payload types). */
export type PluginsActions = Pick<import('../../kernel/maps').ActionMap, 'set_plugin_status'>
