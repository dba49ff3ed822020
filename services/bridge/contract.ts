/** What `server-manager status` shows of a running manager. */
export interface ManagerStatus {
  readonly pid: number
  readonly startedAt: string
  readonly uptimeMs: number
  readonly dataDir: string
  readonly version: string
  /** Processes connected over the bridge right now (the asking one included). */
  readonly clients: number
  /** The plugins loaded in the manager, in load order. */
  readonly plugins: readonly string[]
}

declare module '../../kernel/maps' {
  interface EventMap {
    /** Someone asked the manager to stop (`server-manager web stop`); the process that runs it stops cleanly. */
    manager_stop_requested: { readonly by: string }
  }

  interface CommandMap {
    /** The running manager: PID, uptime, data directory, loaded plugins. */
    'manager:status': { payload: Record<string, never>; reply: ManagerStatus }
    /** Asks the manager to stop as on SIGTERM; answers before it begins. */
    'manager:stop': { payload: Record<string, never>; reply: { pid: number } }
  }
}
