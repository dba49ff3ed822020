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

/** What a host agent says on every beat (services/servers/supervisor/agent-link.ts); checked as it arrives. */
export const hostReport = z.object({
  name: z.string().max(64),
  hostname: z.string().max(255),
  pid: z.number().int(),
  version: z.string().max(64),
  node: z.string().max(64),
  startedAt: z.string().max(64),
  load: z.array(z.number()).max(3),
  memory: z.object({ total: z.number(), free: z.number() }),
  disk: z.object({ total: z.number(), free: z.number() }),
  rss: z.number(),
  servers: z.array(z.object({ server: z.string().max(255), status: z.string().max(32) })).max(10_000),
  at: z.string().max(64),
})

/** A host as the manager knows it: its last report, and whether it is there. */
const host = hostReport.extend({
  online: z.boolean(),
  /** When `online` last changed (ISO time). */
  since: z.string(),
  /** When its last beat came. */
  lastSeen: z.string(),
})
export type Host = Readonly<z.output<typeof host>>

export const natsCommands = defineCommands('nats', {
  /** The manager's link to the NATS broker. */
  'nats:status': command(empty, natsStatus),
  /** Every host agent that has joined the broker since the manager started: online or not, its figures. */
  'nats:hosts': command(empty, z.array(host).readonly()),
})

export const natsEvents = defineEvents('nats', {
  /** A host agent joined, or came back (its first beat after being gone). */
  'nats:host_online': z.object({ name: z.string(), hostname: z.string(), version: z.string() }),
  /** A host agent said goodbye, or missed three beats. */
  'nats:host_offline': z.object({ name: z.string(), lastSeen: z.string(), reason: z.string() }),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof bridgeEvents>, EventsOf<typeof natsEvents> {}

  interface CommandMap extends CommandsOf<typeof bridgeCommands>, CommandsOf<typeof natsCommands> {}
}
