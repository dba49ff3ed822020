import { z } from 'zod'
import { type ActionsOf, defineActions } from '../../kernel/action-catalogue'

export const pluginsActions = defineActions('plugins', {
  /** A plugin is enabled or disabled. */
  set_plugin_status: {
    payload: z.object({ pluginName: z.string(), enabled: z.boolean() }).readonly(),
    identity: ['pluginName'],
    summary: 'a plugin is enabled or disabled',
  },
})

declare module '../../kernel/maps' {
  interface ActionMap extends ActionsOf<typeof pluginsActions> {}
}

/** The actions this service declares (their payload types). */
export type PluginsActions = ActionsOf<typeof pluginsActions>
