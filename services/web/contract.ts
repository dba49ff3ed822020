import type { Contributions } from './plugin-layer'

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
    /** A plugin's routers, template folders and static mounts go live (refused, naming both, on a conflict). */
    'web:claim': { payload: Contributions; reply: undefined }
    /** A plugin's contributions go away (it was disabled, reloaded or unloaded). */
    'web:release': { payload: { plugin: string }; reply: undefined }
    'web:status': { payload: Record<string, never>; reply: WebStatus }
  }
}
