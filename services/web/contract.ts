import { z } from 'zod'
import { type CommandsOf, command, defineCommands, empty } from '../../kernel'
import { createToken } from '../../kernel/registry'
import type { Contributions } from './plugin-layer'

/**
 * Where plugins' web contributions go live, a capability the web service registers (routers and
 * template folders are code, never a message): refused, naming both, on a conflict.
 */
export interface WebContributions {
  claim(contributions: Contributions): void
  /** A plugin's contributions go away (it was disabled, reloaded or unloaded). */
  release(plugin: string): void
}

export const WEB_CONTRIBUTIONS = createToken<WebContributions>('web:contributions')

const webStatus = z.object({
  listening: z.boolean(),
  url: z.string().optional(),
  /** Plugins whose routes, mounts or templates are in. */
  plugins: z.array(z.string()).readonly(),
  routes: z.number(),
  streamClients: z.number(),
  since: z.string(),
})
export type WebStatus = Readonly<z.output<typeof webStatus>>

export const webCommands = defineCommands('web', {
  'web:status': command(empty, webStatus),
})

declare module '../../kernel/maps' {
  interface CommandMap extends CommandsOf<typeof webCommands> {}
}
