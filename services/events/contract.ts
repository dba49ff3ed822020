/** The event log's contract on the bus, and the types projections are written against. */
import { z } from 'zod'
import {
  type CommandsOf,
  command,
  createToken,
  defineCommands,
  defineEvents,
  type EventsOf,
  empty,
  queryFlag,
} from '../../kernel'

export type SqlParams = readonly unknown[] | Record<string, unknown>

/** The statements a projection may run inside the append (or rebuild) transaction. */
export interface Sql {
  run(sql: string, params?: SqlParams): Promise<{ changes: number; lastId: number }>
  /**
   * `run` through a statement prepared once and kept for the connection: one trip to SQLite's
   * thread instead of three (prepare, run, finalize). For hot writes with a fixed text only.
   */
  runPrepared(sql: string, params: SqlParams): Promise<{ changes: number; lastId: number }>
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>
  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>
  exec(sql: string): Promise<void>
}

/** An event as it is stored in the log. */
export const storedEvent = z.object({
  seq: z.number().int(),
  /** ISO 8601, UTC, millisecond precision. */
  time: z.string(),
  type: z.string(),
  /** `core`, `cli:<user>`, `http:<user>`, `plugin:<name>`. */
  actor: z.string(),
  payload: z.unknown(),
})
export type StoredEvent = Readonly<z.output<typeof storedEvent>>

export const newEvent = z.object({ type: z.string(), actor: z.string(), payload: z.unknown() })
export type NewEvent = Readonly<z.output<typeof newEvent>>

const moment = z.union([z.string(), z.number()])

export const eventQuery = z.object({
  /** Only events with a sequence number greater than this. */
  afterSeq: z.number().int().optional(),
  /** Only events with a sequence number smaller than this (the page before, newest first). */
  beforeSeq: z.number().int().optional(),
  /** Only events whose actor contains this (`alice`, `http:`, `plugin:backup`), any case. */
  actor: z.string().max(200).optional(),
  /** Only events about this server (its `serverName`, `server`, or a server fact's `name`). */
  server: z.string().max(200).optional(),
  /** Event types; a trailing `*` matches a prefix (`after_*`); `a,b` is both. */
  types: z.array(z.string()).readonly().optional(),
  /** Only events at or after this time: ISO 8601, epoch ms, or a duration back from now (`15m`, `2h`, `7d`). */
  since: moment.optional(),
  /** Only events before this time (same forms as `since`). */
  until: moment.optional(),
  /** At most this many (default 100, at most 10 000). */
  limit: z.number().int().optional(),
  /** The newest `limit` matches instead of the oldest (still returned oldest first). */
  tail: z.boolean().optional(),
})
export type EventQuery = Readonly<z.output<typeof eventQuery>>

/**
 * State derived from the log. The store calls `apply` inside the append transaction with the
 * batch's events of the listed types, and replays the whole log through it on a rebuild.
 */
export interface Projection {
  readonly name: string
  /** Bump when the tables or the folding change: the store then rebuilds the projection. */
  readonly version: number
  readonly types: readonly string[]
  /**
   * It also folds the facts taken in from other hosts' logs (events:ingest: their payload has
   * `origin: {host, seq, time}`): a view of every host's servers. Default false: a projection of
   * this manager's own state (settings, users, schedules) never sees another host's.
   */
  readonly remote?: boolean
  /** Idempotent DDL (`CREATE TABLE IF NOT EXISTS ...`). */
  readonly schema: readonly string[]
  apply(sql: Sql, events: readonly StoredEvent[]): Promise<void>
  /** Empties the projection's tables. */
  reset(sql: Sql): Promise<void>
  /** The whole state as JSON, written before retention deletes events. */
  snapshot(sql: Sql): Promise<unknown>
  restore(sql: Sql, state: unknown): Promise<void>
}

const rebuildResult = z.object({
  projections: z.array(z.string()),
  replayed: z.number(),
  fromSnapshot: z.number().optional(),
  ms: z.number(),
})
export type RebuildResult = Readonly<z.output<typeof rebuildResult>>

const checkResult = z.object({
  /** `ok`, or what PRAGMA integrity_check found. */
  integrity: z.string(),
  /** Projections whose live state differs from a replay of the log. */
  drifted: z.array(z.string()),
  events: z.number(),
})
export type CheckResult = Readonly<z.output<typeof checkResult>>

const pruneResult = z.object({ deleted: z.number(), snapshotSeq: z.number().optional() })
export type PruneResult = Readonly<z.output<typeof pruneResult>>

/**
 * The projections of the log, a capability the events service registers (not a bus message:
 * a projection and a read are code). Services that keep state derived from the log resolve it.
 */
export interface Projections {
  /** Registers a projection, rebuilding it when its version changed; resolves whether it did. */
  register(projection: Projection): Promise<{ rebuilt: boolean }>
  /** Runs `read` on the projection's tables, in a consistent snapshot of them. */
  read<T>(projection: string, read: (sql: Sql) => Promise<T>): Promise<T>
  /**
   * As read(), answered from memory while the database has not changed since `read` (the same
   * function: a module's own, not a closure made per call) last ran; the answer is frozen and
   * shared by every caller. For the reads that answer lists and statuses.
   */
  view<T>(projection: string, read: (sql: Sql) => Promise<T>): Promise<Readonly<T>>
}

export const PROJECTIONS = createToken<Projections>('events:projections')

export const eventsEvents = defineEvents('events', {
  /** New events in the log, in sequence order, from this process or any other. */
  'events:appended': z.object({ events: z.array(storedEvent).readonly() }),
  /** The scheduled retention deleted old events (after writing a snapshot). */
  'events:pruned': pruneResult,
  /**
   * A read of the log is about to be answered: whoever holds facts not yet recorded (the
   * servers service, the status journals supervisors wrote with no manager running) records
   * them now, so the read shows everything that has happened. Awaited before each read.
   */
  'events:reading': empty,
  /** The database file was deleted or replaced by another file: this process writes to a ghost. */
  'events:database_lost': z.object({ path: z.string(), reason: z.string() }),
})

export const eventsCommands = defineCommands('events', {
  'events:append': command(z.object({ events: z.array(newEvent).readonly() }), z.array(storedEvent)),
  'events:read': command(eventQuery, z.array(storedEvent), {
    http: {
      method: 'get',
      path: '/events',
      name: 'list_events',
      summary: 'The event log (facts), oldest first; filter by type (prefix*), actor, server, time and sequence',
      tags: ['Events'],
      access: 'admin',
      // The query's strings, read as the query's fields: one `types` string (the log splits it at commas).
      input: z.object({
        types: z
          .string()
          .optional()
          .meta({ description: 'comma-separated; a trailing * matches a prefix' })
          .transform((types) => (types ? [types] : undefined)),
        after: z.coerce.number().int().min(0).optional(),
        before: z.coerce.number().int().min(1).optional(),
        actor: z.string().max(200).optional().meta({ description: 'only events whose actor contains this' }),
        server: z.string().max(200).optional().meta({ description: 'only events about this server' }),
        since: z.string().optional(),
        until: z.string().optional(),
        limit: z.coerce.number().int().min(1).max(10_000).default(100),
        tail: queryFlag(),
      }),
      rename: { after: 'afterSeq', before: 'beforeSeq' },
      key: 'events',
      response: 'EventList',
    },
  }),
  /**
   * Takes in another host's facts (`origin`: the host), in its log's order, exactly once: those
   * after the last one taken are appended (with `origin: {host, seq, time}` and `at` in their
   * payload) and delivered to this bus's listeners; the rest are skipped. Answers how many went in
   * and how far the log has now taken in that host's log.
   */
  'events:ingest': command(
    z.object({
      origin: z.string().min(1).max(64),
      events: z.array(storedEvent).max(1_000).readonly(),
      /** The cursor moves at least this far (past events the caller chose to leave out). */
      through: z.number().int().optional(),
      /**
       * The name of the host's log they come from (its events:head): when it is not the one the
       * cursor counts in, that host's log was made again, and the cursor starts over at 0.
       */
      log: z.string().max(64).optional(),
    }),
    z.object({ appended: z.number(), cursor: z.number() }),
  ),
  /** How far the log has taken in a host's log (events:ingest): the last sequence number taken, 0 for none; and which of its logs. */
  'events:origin': command(z.object({ origin: z.string() }), z.object({ seq: z.number(), log: z.string().optional() })),
  /** The last sequence number of this log, and the log's own name (made with it: a log made again has another). */
  'events:head': command(empty, z.object({ seq: z.number(), log: z.string() })),
  /** Declares fact types: events of these types are recorded before listeners see them. */
  'events:declare_facts': command(z.object({ types: z.array(z.string()).readonly() }), z.undefined()),
  'events:rebuild': command(empty, rebuildResult),
  'events:check': command(empty, checkResult),
  'events:prune': command(
    z.object({ maxAgeDays: z.number().optional(), maxEvents: z.number().int().optional() }),
    pruneResult,
  ),
  /** Prunes by the retention settings now (what the timer of a running manager does). */
  'events:apply_retention': command(empty, pruneResult),
  /** Emit `events:appended` for everything after `afterSeq` (for a follower that has read up to it). */
  'events:watch': command(z.object({ afterSeq: z.number().int() }), z.undefined()),
  /**
   * The vault: secrets kept beside the log, never in it (the JWT signing key, password
   * hashes), so `events`, snapshots and replays never carry them. Not event-sourced: a
   * rebuild leaves it alone.
   */
  'events:vault_get': command(z.object({ name: z.string() }), z.string().optional()),
  /** Sets a secret; no `value` deletes it. */
  'events:vault_set': command(z.object({ name: z.string(), value: z.string().optional() }), z.undefined()),
  /** Sets a secret only if none is set; answers the one that is (a key generated once, even by racing processes). */
  'events:vault_init': command(z.object({ name: z.string(), value: z.string() }), z.string()),
})

declare module '../../kernel/maps' {
  interface KernelConfig {
    /** The data directory: the database, the log file, user plugins. */
    readonly dataDir: string
  }

  interface EventMap extends EventsOf<typeof eventsEvents> {}

  interface CommandMap extends CommandsOf<typeof eventsCommands> {}
}
