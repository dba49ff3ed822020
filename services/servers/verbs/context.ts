import { statSync } from 'node:fs'
import {
  type BusScope,
  type CommandName,
  type CommandPayload,
  type CommandReply,
  type CommandSpec,
  type HostRoute,
  type Logger,
  SmError,
} from '../../../kernel'
import { type HostsLink, hostTaskId, parseHostTaskId } from '../../bridge/contract'
import type { AccessLists } from '../access-lists'
import type { Backups } from '../backups/backups'
import { type ListedSchedule, type ServerRecord, serversCommands } from '../contract'
import type { ServerControl } from '../control'
import { checkNewName } from '../describe-server'
import type { PlayerRecord } from '../player-history'
import type { PlayerList } from '../player-list'
import type { PlayerTracker } from '../player-tracker'
import type { Schedule, Scheduler } from '../schedules'
import type { ServerList } from '../server-list'
import type { RecordedStatus } from '../status-projection'
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
  /** `servers:list`'s answer, kept in memory while nothing changed it. */
  readonly serverList: ServerList
  /** A setting's value in effect (`settings:get`). */
  setting(key: string): Promise<unknown>
  /** Every registered server (the `servers` projection). */
  all(): Promise<readonly ServerRecord[]>
  /** The server named so, or SM_ERR_SERVER_NOT_FOUND naming the nearest name. */
  find(name: string): Promise<ServerRecord>
  places(): Promise<Places>
  /** Runs long work on `server` as a task (listed by `tasks`, recorded as facts); resolves to its result. */
  task<T>(name: string, server: string, work: () => Promise<T>): Promise<T>
  /** Begins long work on `server` as a task and answers its id at once (its result is read with tasks:get). */
  begin(name: string, server: string, work: () => Promise<unknown>): { taskId: string }
  /** The player history of a server (the `player_history` projection). */
  history(server: string): Promise<PlayerRecord[]>
  /** Every stored schedule (the `schedules` projection). */
  schedules(): Promise<Schedule[]>
  /** Who is online, asked of the game now (a read: not a command_send action). */
  listPlayers(server: ServerRecord): Promise<PlayerList>
  /** Who is online, while the manager follows the server running and its tracker knows. */
  online(server: string, status: ServerStatus): PlayerList | undefined
  /** How many `online` would say are online, without their names (the servers list, on every read). */
  onlineCount(server: string, status: ServerStatus): number | undefined
  /** The host agents on the NATS broker, in a manager that is on one (services/bridge: HOSTS). */
  hosts(): HostsLink | undefined
  /** Each server's last recorded status (the `server_status` projection), the host agents' servers too. */
  statuses(): Promise<readonly RecordedStatus[]>
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

/** How a command of the servers service routes for a server on another host, as its contract declares (`host`). */
const hostRoute = (command: string): HostRoute =>
  (serversCommands as Record<string, CommandSpec>)[command]?.doors?.host ?? {}

/**
 * Registers every verb of `table` on the bus, each handed the context. A command for a server on
 * another host (its record's `host`, or `host` in an add or an install) goes to that host's agent
 * instead, which answers it with the same verbs; its hooks still run here (the agent asks).
 */
export function registerVerbs(bus: BusScope, ctx: ServersContext, table: VerbTable): void {
  for (const name of Object.keys(table) as ServersCommand[]) {
    const verb = table[name] as Verb<typeof name>
    bus.handle(name, async (payload, meta) => {
      const here = hostRoute(name).here === true || (payload as { forget?: boolean }).forget === true
      const host = here ? undefined : await hostOf(ctx, payload)
      if (host !== undefined) {
        // A process that is not on the broker (a CLI with no manager running) cannot reach it:
        // never as if that machine's server were this one's.
        if (!ctx.hosts())
          throw new SmError('SM_ERR_HOST_UNREACHABLE', {
            host,
            reason: 'no manager on the NATS broker runs on this machine (start it: server-manager start)',
          })
        return (await onHost(ctx, host, name, payload, meta.actor)) as CommandReply<typeof name>
      }
      const reply = await verb(ctx, payload)
      // Every schedule: this machine's and the online hosts' (an offline host's are not known now).
      if (name === 'servers:schedule_list' && !here && ctx.hosts() && (payload as { name?: string }).name === undefined)
        return [...(reply as ListedSchedule[]), ...(await hostSchedules(ctx, meta.actor))] as CommandReply<typeof name>
      return reply
    })
  }
}

/** The host a command's payload concerns: the one it names (an add, an install), its server's, or its schedule's. */
async function hostOf(ctx: ServersContext, payload: unknown): Promise<string | undefined> {
  const { host, name, id } = (payload ?? {}) as { host?: unknown; name?: unknown; id?: unknown }
  if (typeof host === 'string' && host !== '') return host
  // A schedule of a host's server, by the id the manager gave it (`<host>/<its id there>`).
  if (typeof id === 'string' && name === undefined) return parseHostTaskId(id)?.host
  if (typeof name !== 'string') return undefined
  return (await ctx.all()).find((server) => server.name === name)?.host
}

/** The schedule commands that name a schedule by the id the manager gave it (`<host>/<id>`). */
const SCHEDULE_BY_ID = new Set(['servers:schedule_edit', 'servers:schedule_remove'])

/**
 * Sends a command to the host's agent, then takes in the facts it recorded doing it before
 * answering, so what the caller reads next (list, status, events) already shows it.
 */
async function onHost(ctx: ServersContext, host: string, command: string, payload: unknown, actor: string) {
  const hosts = ctx.hosts() as HostsLink
  const { host: _named, ...rest } = payload as Record<string, unknown>
  if (SCHEDULE_BY_ID.has(command)) rest.id = parseHostTaskId(String(rest.id))?.id
  const adds = command === 'servers:add' || command === 'servers:install'
  if (adds) {
    // A name is one server's on every host.
    checkNewName(rest.name, await ctx.all())
    if (!hosts.state(host)) {
      const known = await ctx.bus.request('nats:hosts', {})
      throw new SmError('SM_ERR_HOST_UNKNOWN', {
        host,
        known: known.length ? `hosts: ${known.map((h) => h.name).join(', ')}` : 'no host has',
      })
    }
  }
  // A file of this machine to take (a release, a world, an archive) is sent there first.
  const field = hostRoute(command).sends
  const local = field === undefined ? undefined : rest[field]
  // No more of a backup than the broker carries in one message: the reader goes on from what came.
  if (command === 'servers:backup_bytes') rest.length = Math.min(Number(rest.length), hosts.pieceBytes)
  // A read records nothing there: no facts to take in after it (a download's every piece).
  const ask = hostRoute(command).reads ? hosts.request.bind(hosts) : hosts.call.bind(hosts)
  const reply =
    typeof local === 'string' && statSync(local, { throwIfNoEntry: false })?.isFile()
      ? await hosts.sending(host, local, actor, (there) =>
          ask(host, command, { ...rest, [field as string]: there }, actor),
        )
      : await ask(host, command, rest, actor)
  // A record from there says where it lives (the host's own copy does not: it is at home); so
  // does a backup's path, there to be read piece by piece (servers:backup_bytes).
  if (adds || command === 'servers:info' || command === 'servers:backup_file') return { ...(reply as object), host }
  // A task it runs there, by the name the manager's tasks:get and tasks:cancel route with.
  if (command === 'servers:begin') return { taskId: hostTaskId(host, (reply as { taskId: string }).taskId) }
  // Its schedules, by the ids the manager's schedule_remove routes with.
  if (command === 'servers:schedule_list') return hostScheduleIds(host, reply as ListedSchedule[])
  if (SCHEDULE_BY_ID.has(command) || command === 'servers:schedule_add')
    return hostScheduleIds(host, [reply as ListedSchedule])[0]
  return reply
}

/** A host's schedules as the manager names them: `<host>/<its id there>`. */
function hostScheduleIds(host: string, schedules: readonly ListedSchedule[]): ListedSchedule[] {
  return schedules.map((schedule) => ({ ...schedule, id: hostTaskId(host, schedule.id) }))
}

/** The schedules of every online host's servers (an offline host's are not known now: its servers list as unknown). */
async function hostSchedules(ctx: ServersContext, actor: string): Promise<ListedSchedule[]> {
  const hosts = ctx.hosts()
  if (!hosts) return []
  const servers = await ctx.all()
  const names = [...new Set(servers.flatMap((server) => (server.host === undefined ? [] : [server.host])))]
  const lists = await Promise.all(
    names
      .filter((host) => hosts.state(host)?.online)
      .map(async (host) => {
        // One that fails to answer (gone offline meanwhile) is as an offline one: said, and left out.
        const listed = await hosts.request(host, 'servers:schedule_list', {}, actor).catch((error: unknown) => {
          ctx.logger.warn(`The schedules of host '${host}' are not listed: ${(error as Error).message}`)
          return []
        })
        return hostScheduleIds(host, listed as ListedSchedule[])
      }),
  )
  return lists.flat()
}
