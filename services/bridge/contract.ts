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

/** The manager's namespace (`manager:*`), which the bridge service owns: it is what makes a process the manager. */
export const bridgeEvents = defineEvents(
  'manager',
  {
    /** Fired once in a long-running manager after every service started (plugins get `onManagerStartup`). */
    'manager:started': empty,
    /** Someone asked the manager to stop (`server-manager web stop`); the process that runs it stops cleanly. */
    'manager:stop_requested': z.object({ by: z.string() }),
  },
  {
    'manager:started': 'manager_started', // formerly
    'manager:stop_requested': 'manager_stop_requested', // formerly
  },
)

export const bridgeCommands = defineCommands('manager', {
  /** The running manager: PID, uptime, data directory, loaded plugins. */
  'manager:status': command(empty, managerStatus),
  /** Asks the manager to stop as on SIGTERM; answers before it begins. */
  'manager:stop': command(empty, z.object({ pid: z.number() })),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof bridgeEvents> {}

  interface CommandMap extends CommandsOf<typeof bridgeCommands> {}
}
