import type { BusScope, CommandName, CommandPayload, CommandReply, Logger } from '../../../kernel'
import type { AccessLists } from '../access-lists'
import type { Backups } from '../backups/backups'
import type { ServerRecord } from '../contract'
import type { ServerControl } from '../control'
import type { PlayerRecord } from '../player-history'
import type { PlayerList } from '../player-list'
import type { PlayerTracker } from '../player-tracker'
import type { Schedule, Scheduler } from '../schedules'
import type { ServerStatus } from '../supervisor/run-files'

/** Where servers may not be (server-dir.ts): the data directory, but for the folder install uses. */
export interface Places {
  readonly dataDir: string
  readonly serversFolder: string
}

/**
 * Everything the verbs of the servers service work with, built once at its start (index.ts): the
 * bus, the registry's reads, process control, backups, players, schedules. A verb gets it as its
 * first argument and holds nothing of its own.
 */
export interface ServersContext {
  readonly bus: BusScope
  readonly dataDir: string
  readonly logger: Logger
  readonly control: ServerControl
  readonly backups: Backups
  readonly access: AccessLists
  readonly players: PlayerTracker
  readonly scheduler: Scheduler
  /** A setting's value in effect (`settings:get`). */
  setting(key: string): Promise<unknown>
  /** Every registered server (the `servers` projection). */
  all(): Promise<ServerRecord[]>
  /** The server named so, or SM_ERR_SERVER_NOT_FOUND naming the nearest name. */
  find(name: string): Promise<ServerRecord>
  places(): Promise<Places>
  /** Runs long work as a task (listed by `tasks`, recorded as facts); resolves to its result. */
  task<T>(name: string, work: () => Promise<T>): Promise<T>
  /** Begins long work as a task and answers its id at once (its result is read with tasks:get). */
  begin(name: string, work: () => Promise<unknown>): { taskId: string }
  /** The player history of a server (the `player_history` projection). */
  history(server: string): Promise<PlayerRecord[]>
  /** Every stored schedule (the `schedules` projection). */
  schedules(): Promise<Schedule[]>
  /** Who is online, asked of the game now (a read: not a command_send action). */
  listPlayers(server: ServerRecord): Promise<PlayerList>
  /** Who is online, while the manager follows the server running and its tracker knows. */
  online(server: string, status: ServerStatus): PlayerList | undefined
}

/** The commands of the servers service. */
export type ServersCommand = Extract<CommandName, `servers:${string}`>

/** One verb: a command's handler over the service's context. */
export type Verb<K extends CommandName> = (
  ctx: ServersContext,
  payload: CommandPayload<K>,
) => CommandReply<K> | Promise<CommandReply<K>>

/** A table of verbs: the commands one area of the service answers, each with its handler. */
export type VerbTable = { readonly [K in ServersCommand]?: Verb<K> }

/** Registers every verb of `table` on the bus, each handed the context. */
export function registerVerbs(bus: BusScope, ctx: ServersContext, table: VerbTable): void {
  for (const name of Object.keys(table) as ServersCommand[]) {
    const verb = table[name] as Verb<typeof name>
    bus.handle(name, (payload) => verb(ctx, payload))
  }
}
