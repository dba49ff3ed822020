import { deepFreeze } from '../../kernel'
import type { ServerRecord, ServerSummary } from './contract'
import type { RecordedStatus } from './status-projection'
import type { RunStatus } from './supervisor/protocol'
import type { ServersContext } from './verbs/context'

interface Held {
  readonly record: ServerRecord
  /** The server's count of moves when `run` was read (run-moves.ts). */
  readonly moves: number
  /** Until when a run held only by the run watch is answered from memory (performance.now()). */
  readonly until: number
  readonly run: RunStatus
  entry: ServerSummary
}

/**
 * How long a run held only by the run watch is answered from memory before it is read again: a
 * change whose notification was lost (the system's queue overflowed) is shown after this, not
 * never. A run the manager follows needs none: a lost connection is heard.
 */
const WATCHED_MS = 5_000

/**
 * `servers:list` from memory (issue 36 item 4). Each server of this machine is listed with its
 * run status as last read, while nothing can have changed it since: its record is the registry's
 * same (a view, itself current with the log: events/event-store.ts) and its run has not moved
 * (run-moves.ts: its supervisor's word as the manager follows it, a power action of this
 * process, a change of its run files by any process). A run that cannot be held so (a one-shot
 * command's, which follows nothing; a game under way that the manager does not follow; a run
 * whose files cannot be watched) is read every time, as before. Who is online is the player
 * tracker's at each list; a server of another host is its host's last beat and its recorded
 * status. An unchanged list is the same frozen array, its entries the same objects, so what a
 * reader makes of one (a list without secrets: withoutServerSecretsEach) can be kept too.
 */
export class ServerList {
  readonly #held = new Map<string, Held>()
  #last: readonly ServerSummary[] = Object.freeze([])
  /** The registry's list the held entries were last pruned against. */
  #records: readonly ServerRecord[] = []

  async list(ctx: ServersContext): Promise<readonly ServerSummary[]> {
    const records = await ctx.all()
    const remote = records.some((server) => server.host !== undefined)
    const recorded = remote ? new Map((await ctx.statuses()).map((s) => [s.name, s])) : undefined
    // What is held is taken as it is: a promise per server would cost more than the list.
    const made = records.map((server) =>
      server.host === undefined ? this.#local(ctx, server) : onHost(ctx, server, recorded?.get(server.name)),
    )
    const entries = made.every(isEntry) ? made : await Promise.all(made)
    if (entries.length === this.#last.length && entries.every((entry, i) => entry === this.#last[i])) return this.#last
    if (records !== this.#records) {
      // The registry changed: what is held of a server it no longer has goes.
      const names = new Set(records.map((server) => server.name))
      for (const name of this.#held.keys()) if (!names.has(name)) this.#held.delete(name)
      this.#records = records
    }
    this.#last = Object.freeze(entries)
    return this.#last
  }

  #local(ctx: ServersContext, server: ServerRecord): ServerSummary | Promise<ServerSummary> {
    const held = this.#held.get(server.name)
    const { moves } = ctx.control
    if (!held || held.record !== server || held.moves !== moves.count(server.name) || performance.now() > held.until)
      return this.#read(ctx, server)
    // Who is online moves with the console, not the run: the entry is made again when it did.
    if (ctx.onlineCount(server.name, held.run.status) !== held.entry.players)
      held.entry = summary(ctx, server, held.run)
    return held.entry
  }

  /** Reads the server's run, and holds it while run-moves.ts says nothing can change it unheard. */
  async #read(ctx: ServersContext, server: ServerRecord): Promise<ServerSummary> {
    const { moves } = ctx.control
    const count = moves.count(server.name)
    const run = await ctx.control.status(server)
    const entry = summary(ctx, server, run)
    const hold = moves.count(server.name) === count ? moves.holds(server.name, run) : undefined
    if (hold) {
      const until = hold === 'watched' ? performance.now() + WATCHED_MS : Number.POSITIVE_INFINITY
      this.#held.set(server.name, { record: server, moves: count, until, run, entry })
    }
    return entry
  }
}

/** An entry made at once (none was a promise). */
function isEntry(entry: ServerSummary | Promise<ServerSummary>): entry is ServerSummary {
  return !(entry instanceof Promise)
}

function summary(ctx: ServersContext, server: ServerRecord, run: RunStatus): ServerSummary {
  const count = ctx.onlineCount(server.name, run.status)
  return deepFreeze({
    ...server,
    status: run.status,
    pid: run.pid,
    ...(count === undefined ? {} : { players: count }),
    ...(run.metrics ? { metrics: run.metrics } : {}),
  })
}

/**
 * A server on another host, as the log knows it: its last recorded status (its host's facts come
 * in as they are recorded), or `unknown` since its host went offline.
 */
function onHost(ctx: ServersContext, server: ServerRecord, recorded: RecordedStatus | undefined): ServerSummary {
  const host = ctx.hosts()?.state(server.host as string)
  if (!host?.online) return { ...server, status: 'unknown' as const, since: host?.since ?? server.addedAt }
  // Its status as recorded here; its game's PID (there) and who is on, as its host's last beat said.
  const beat = host.servers.find((s) => s.server === server.name)
  return {
    ...server,
    status: recorded?.status ?? ('stopped' as const),
    ...(beat?.pid === undefined ? {} : { pid: beat.pid }),
    ...(beat?.players === undefined ? {} : { players: beat.players }),
  }
}
