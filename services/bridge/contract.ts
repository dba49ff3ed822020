import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'

/** What `server-manager status` shows of a running manager. */
const managerStatus = z.object({
  pid: z.number(),
  startedAt: z.string(),
  uptimeMs: z.number(),
  dataDir: z.string(),
  version: z.string(),
  /** Processes connected over the bridge right now (the asking one included). */
  clients: z.number(),
  /** The plugins loaded in the manager, in load order. */
  plugins: z.array(z.string()).readonly(),
})
export type ManagerStatus = Readonly<z.output<typeof managerStatus>>

export const bridgeEvents = defineEvents('bridge', {
  /** Someone asked the manager to stop (`server-manager web stop`); the process that runs it stops cleanly. */
  manager_stop_requested: z.object({ by: z.string() }),
})

export const bridgeCommands = defineCommands('bridge', {
  /** The running manager: PID, uptime, data directory, loaded plugins. */
  'manager:status': command(empty, managerStatus),
  /** Asks the manager to stop as on SIGTERM; answers before it begins. */
  'manager:stop': command(empty, z.object({ pid: z.number() })),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof bridgeEvents> {}

  interface CommandMap extends CommandsOf<typeof bridgeCommands> {}
}
