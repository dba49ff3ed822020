/** The event log's contract on the bus, and the types projections are written against. */

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
export interface StoredEvent {
  readonly seq: number
  /** ISO 8601, UTC, millisecond precision. */
  readonly time: string
  readonly type: string
  /** `core`, `cli:<user>`, `http:<user>`, `plugin:<name>`. */
  readonly actor: string
  readonly payload: unknown
}

export interface NewEvent {
  readonly type: string
  readonly actor: string
  readonly payload: unknown
}

export interface EventQuery {
  /** Only events with a sequence number greater than this. */
  readonly afterSeq?: number
  /** Event types; a trailing `*` matches a prefix (`after_*`); `a,b` is both. */
  readonly types?: readonly string[]
  /** Only events at or after this time: ISO 8601, epoch ms, or a duration back from now (`15m`, `2h`, `7d`). */
  readonly since?: string | number
  /** Only events before this time (same forms as `since`). */
  readonly until?: string | number
  /** At most this many (default 100, at most 10 000). */
  readonly limit?: number
  /** The newest `limit` matches instead of the oldest (still returned oldest first). */
  readonly tail?: boolean
}

/**
 * State derived from the log. The store calls `apply` inside the append transaction with the
 * batch's events of the listed types, and replays the whole log through it on a rebuild.
 */
export interface Projection {
  readonly name: string
  /** Bump when the tables or the folding change: the store then rebuilds the projection. */
  readonly version: number
  readonly types: readonly string[]
  /** Idempotent DDL (`CREATE TABLE IF NOT EXISTS ...`). */
  readonly schema: readonly string[]
  apply(sql: Sql, events: readonly StoredEvent[]): Promise<void>
  /** Empties the projection's tables. */
  reset(sql: Sql): Promise<void>
  /** The whole state as JSON, written before retention deletes events. */
  snapshot(sql: Sql): Promise<unknown>
  restore(sql: Sql, state: unknown): Promise<void>
}

export interface RebuildResult {
  readonly projections: string[]
  readonly replayed: number
  readonly fromSnapshot: number | undefined
  readonly ms: number
}

export interface CheckResult {
  /** `ok`, or what PRAGMA integrity_check found. */
  readonly integrity: string
  /** Projections whose live state differs from a replay of the log. */
  readonly drifted: string[]
  readonly events: number
}

export interface PruneResult {
  readonly deleted: number
  readonly snapshotSeq: number | undefined
}

declare module '../../kernel/maps' {
  interface KernelConfig {
    /** The data directory: the database, the log file, user plugins. */
    readonly dataDir: string
  }

  interface EventMap {
    /** New events in the log, in sequence order, from this process or any other. */
    'events:appended': { readonly events: readonly StoredEvent[] }
    /** The scheduled retention deleted old events (after writing a snapshot). */
    'events:pruned': PruneResult
    /**
     * A read of the log is about to be answered: whoever holds facts not yet recorded (the
     * servers service, the status journals supervisors wrote with no manager running) records
     * them now, so the read shows everything that has happened. Awaited before each read.
     */
    'events:reading': Record<string, never>
    /** The database file was deleted or replaced by another file: this process writes to a ghost. */
    'events:database_lost': { readonly path: string; readonly reason: string }
  }

  interface CommandMap {
    'events:append': { payload: { events: readonly NewEvent[] }; reply: StoredEvent[] }
    'events:read': { payload: EventQuery; reply: StoredEvent[] }
    'events:head': { payload: Record<string, never>; reply: { seq: number } }
    'events:register_projection': { payload: { projection: Projection }; reply: { rebuilt: boolean } }
    'events:read_projection': {
      payload: { projection: string; read: (sql: Sql) => Promise<unknown> }
      reply: unknown
    }
    'events:declare_facts': { payload: { types: readonly string[] }; reply: undefined }
    'events:rebuild': { payload: Record<string, never>; reply: RebuildResult }
    'events:check': { payload: Record<string, never>; reply: CheckResult }
    'events:prune': { payload: { maxAgeDays?: number; maxEvents?: number }; reply: PruneResult }
    /** Prunes by the retention settings now (what the timer of a running manager does). */
    'events:apply_retention': { payload: Record<string, never>; reply: PruneResult }
    /** Emit `events:appended` for everything after `afterSeq` (for a follower that has read up to it). */
    'events:watch': { payload: { afterSeq: number }; reply: undefined }
    /**
     * The vault: secrets kept beside the log, never in it (the JWT signing key, password
     * hashes), so `events`, snapshots and replays never carry them. Not event-sourced: a
     * rebuild leaves it alone.
     */
    'events:vault_get': { payload: { name: string }; reply: string | undefined }
    /** Sets a secret; `value: undefined` deletes it. */
    'events:vault_set': { payload: { name: string; value: string | undefined }; reply: undefined }
    /** Sets a secret only if none is set; answers the one that is (a key generated once, even by racing processes). */
    'events:vault_init': { payload: { name: string; value: string }; reply: string }
  }
}
