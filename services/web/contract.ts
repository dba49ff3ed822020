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

export interface WebStatus {
  readonly listening: boolean
  readonly url: string | undefined
  /** Plugins whose routes, mounts or templates are in. */
  readonly plugins: readonly string[]
  readonly routes: number
  readonly streamClients: number
  readonly since: string
}

declare module '../../kernel/maps' {
  interface CommandMap {
    'web:status': { payload: Record<string, never>; reply: WebStatus }
  }
}
