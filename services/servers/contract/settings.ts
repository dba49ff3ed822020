/** A server's own settings, as a form shows them. */
import { z } from 'zod'
import { command } from '../../../kernel'
import { named, serverDoor } from './records'

/** One setting of a server as a form shows it: its value in effect, and where that comes from. */
export const serverSettingView = z.object({
  key: z.string(),
  value: z.unknown().optional().meta({ description: 'the value in effect; none when it has none' }),
  own: z
    .boolean()
    .meta({ description: 'whether the server has a value of its own (else it inherits or has its default)' }),
  inherits: z.string().optional().meta({ description: 'the global setting it follows while it has none of its own' }),
  summary: z.string(),
  /** `json`: a plugin's value. */
  kind: z.enum(['boolean', 'integer', 'json']).meta({ description: 'what its values are' }),
})
export type ServerSettingView = Readonly<z.output<typeof serverSettingView>>

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const settingsCommands = {
  /** The server's settings in effect, or one of them. */
  'servers:get_setting': command(
    named.extend({ key: z.string().optional() }),
    z.object({ value: z.unknown().optional() }),
  ),
  /** Every declared setting of the server with where its value comes from (own, inherited, default), and its custom ones. */
  'servers:settings': command(named, z.array(serverSettingView), {
    host: { reads: true },
    http: serverDoor({
      method: 'get',
      path: '/servers/:name/config',
      right: 'settings',
      name: 'server_config',
      summary: "A server's own settings: autostart, restart policy, backup policy, retention, memory, plugin values",
      access: 'moderator',
      key: 'settings',
      response: 'ServerConfig',
    }),
  }),
  /**
   * Sets several per-server settings at once (`null` unsets one), each checked before any is
   * changed; answers them all as `servers:settings` does.
   */
  'servers:set_settings': command(
    named.extend({ settings: z.record(z.string().min(1).max(200), z.unknown()) }),
    z.array(serverSettingView),
  ),
  /** Sets one per-server setting (`value` undefined unsets it). */
  'servers:set_setting': command(
    named.extend({ key: z.string(), value: z.unknown().optional() }),
    z.object({ key: z.string(), value: z.unknown().optional(), previous: z.unknown().optional() }),
  ),
}
