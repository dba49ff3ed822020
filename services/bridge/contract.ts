import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'

/** The NATS transport's state: whether the manager is on the broker, since when, and why not. */
const natsStatus = z.object({
  /** Whether nats.url (or --nats) is set; false: one machine, no broker. */
  configured: z.boolean(),
  url: z.string().optional(),
  prefix: z.string().optional(),
  connected: z.boolean(),
  /** When `connected` last changed (ISO time). */
  since: z.string().optional(),
  /** Why it is not connected. */
  reason: z.string().optional(),
  /** The broker's server name, when connected. */
  server: z.string().optional(),
})
export type NatsStatus = Readonly<z.output<typeof natsStatus>>

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
  /** Its link to the NATS broker. */
  nats: natsStatus.optional(),
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

export const natsCommands = defineCommands('nats', {
  /** The manager's link to the NATS broker. */
  'nats:status': command(empty, natsStatus),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof bridgeEvents> {}

  interface CommandMap extends CommandsOf<typeof bridgeCommands>, CommandsOf<typeof natsCommands> {}
}
