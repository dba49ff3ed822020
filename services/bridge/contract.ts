import { z } from 'zod'
import {
  type Catalogue,
  type CommandsOf,
  command,
  createToken,
  defineCommands,
  defineEvents,
  type EventsOf,
  empty,
} from '../../kernel'
import type { NatsConfig } from '../../lib/nats-link'

/** A host agent's identity on the broker, and what overrides the nats.* settings there (agent start's flags). */
export interface HostOptions {
  readonly name: string
  readonly version: string
  readonly config?: Partial<NatsConfig>
}

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
  /** In a host agent: the host it is on the broker. */
  host: z.string().optional(),
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
/** Text from another machine: no control characters (it reaches terminals and logs). */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters')
const bytes = z.number().nonnegative()

export const hostReport = z.object({
  name: text(64),
  hostname: text(255),
  pid: z.number().int().positive(),
  version: text(64),
  node: text(64),
  startedAt: text(64),
  load: z.array(z.number().nonnegative()).max(3),
  memory: z.object({ total: bytes, free: bytes }),
  disk: z.object({ total: bytes, free: bytes }),
  rss: bytes,
  servers: z
    .array(
      z.object({
        server: text(64),
        status: text(32),
        /** Its game's PID on that machine, while it runs. */
        pid: z.number().int().positive().optional(),
        /** How many players are online, while that host's manager follows it and knows. */
        players: z.number().int().min(0).max(1_000_000).optional(),
      }),
    )
    .max(1_000),
  /** The last sequence number in its event log: the manager takes in what it has not yet. */
  lastSeq: z.number().int().min(0),
  /** Its event log's own name: another one means its log was made again (counted from its start). */
  log: text(64).optional(),
  at: text(64),
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

/**
 * The manager's way to the host agents on the broker, a capability the NATS service registers
 * (only in a manager with nats.url set): the servers service routes a server's commands to its
 * host through it.
 */
export interface HostsLink {
  /**
   * Sends a command to a host's bus and resolves to its reply, or rejects with its coded error;
   * a host that is offline or does not answer fails at once with SM_ERR_HOST_UNREACHABLE.
   */
  request(host: string, command: string, payload: unknown, actor: string): Promise<unknown>
  /**
   * A request that changes something there: resolves once the facts the host recorded doing it
   * are taken into this log too (a failure to take them in is logged; the next sync brings them).
   */
  call(host: string, command: string, payload: unknown, actor: string): Promise<unknown>
  /**
   * Sends a file of this machine to the host (files:stage, in pieces), runs `use` with its path
   * there (a command that takes it: `from`), and then removes it there (files:unstage), whatever
   * `use` did; resolves to what `use` resolved to.
   */
  sending<T>(host: string, file: string, actor: string, use: (there: string) => Promise<T>): Promise<T>
  /** The most bytes of a file one message may carry on this broker (its max_payload allows, at most PIECE_BYTES). */
  readonly pieceBytes: number
  /** Takes in the host's facts this log has not yet (in order, exactly once); resolves when they are in. */
  sync(host: string): Promise<void>
  /** Whether the host is online, and since when, and its servers as its last beat said; undefined for a host never heard from. */
  state(host: string): Pick<Host, 'online' | 'since' | 'servers'> | undefined
}

export const HOSTS = createToken<HostsLink>('nats:hosts')

/**
 * What of a host agent's bus concerns the manager: its servers' and its tasks' live events (a
 * console line, a sample, a task's progress). Its kernel's, settings' or bridge's events are its
 * own: relayed, a host's `kernel:stopping` would stop the manager's bridge.
 */
export function isHostEvent(event: string): boolean {
  return event.startsWith('servers:') || event.startsWith('tasks:')
}

/** An action about a server (`before_server_start`, `before_command_send`, `before_file_write`, …), whose hooks run in the manager for every host. */
export function isServerHook(event: string, catalogue: Catalogue): boolean {
  const hook = /^(before|after)_(.+)$/.exec(event)
  return hook !== null && isServerAction(hook[2] as string, catalogue)
}

/**
 * A task a host agent runs, as the manager names it: `<host>/<its id there>` (servers:begin's
 * reply, the tasks:* events relayed from it); tasks:get and tasks:cancel of such an id go there.
 */
export function hostTaskId(host: string, id: string): string {
  return `${host}/${id}`
}

/** The host and its own id of a task the manager named with hostTaskId, or undefined for one of its own. */
export function parseHostTaskId(id: string): { host: string; id: string } | undefined {
  const match = /^([A-Za-z0-9_-]{1,64})\/(.+)$/.exec(id)
  return match ? { host: match[1] as string, id: match[2] as string } : undefined
}

/** The server an event is about (`serverName`, `name`, `server` or `server.name` in its payload), if any. */
export function serverOf(payload: unknown): string | undefined {
  const p = (payload ?? {}) as { serverName?: unknown; name?: unknown; server?: unknown }
  for (const value of [p.serverName, p.name, p.server, (p.server as { name?: unknown } | null)?.name])
    if (typeof value === 'string') return value
  return undefined
}

/** Whether the manager takes in facts of this type from a host's log (hostFactTypes), rather than hearing them live. */
export function isHostFact(event: string, catalogue: Catalogue): boolean {
  if (event.startsWith('servers:')) return true
  const after = /^after_(.+)$/.exec(event)
  return after !== null && isServerAction(after[1] as string, catalogue)
}

/** The facts of a host agent's log the manager takes in: its servers' own and their actions'. */
export function hostFactTypes(catalogue: Catalogue): string[] {
  return [
    'servers:*',
    ...catalogue
      .actions()
      .filter((a) => SERVER_ACTION_OWNERS.has(a.owner))
      .map((a) => `after_${a.name}`),
  ]
}

/** The services whose actions are about one server: its own, and its files'. */
const SERVER_ACTION_OWNERS: ReadonlySet<string> = new Set(['servers', 'files'])

/** Whether an action is about one server (declared by a service in SERVER_ACTION_OWNERS): a lookup, on every fact. */
function isServerAction(action: string, catalogue: Catalogue): boolean {
  return SERVER_ACTION_OWNERS.has(catalogue.actionOwner(action) ?? '')
}

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof bridgeEvents>, EventsOf<typeof natsEvents> {}

  interface CommandMap extends CommandsOf<typeof bridgeCommands>, CommandsOf<typeof natsCommands> {}
}
