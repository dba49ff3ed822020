import { randomUUID } from 'node:crypto'
import { deepFreeze, reasonOf, SmError } from '../../kernel'
import type {
  CheckResult,
  EventQuery,
  NewEvent,
  Projection,
  PruneResult,
  RebuildResult,
  Sql,
  StoredEvent,
} from './contract'
import type { SqliteDatabase } from './database'
import { queryToSql } from './event-query'
import { SCHEMA, SCHEMA_VERSION, verifySchema } from './schema'

interface EventRow {
  seq: number
  time: number
  type: string
  actor: string
  payload: string
}

const INSERT_CHUNK = 200
/** Appends the rows of a JSON array of `[type, actor, payload]`, in order, all at time `?1`. */
const INSERT =
  'INSERT INTO events (time, type, actor, payload) SELECT ?1, value->>0, value->>1, value->>2 FROM json_each(?2) ORDER BY key'
const REPLAY_PAGE = 5_000

/** A question for the database's version (EventStore#now). */
interface Asked {
  begun: boolean
  readonly answer: Promise<{ version: string; changes: ReadonlyMap<string, number> }>
}

/**
 * The event log and the projections derived from it, over one SQLite database. Appends are
 * batched into multi-row inserts and fold into every projection inside the same transaction.
 */
export class EventStore {
  readonly #db: SqliteDatabase
  readonly #projections = new Map<string, Projection>()
  readonly #waiting: Waiting[] = []
  /** The event types some projection folds (their appends need a transaction). */
  readonly #followed = new Set<string>()
  #committing = false
  #committed: (events: readonly StoredEvent[]) => void = () => {}
  /** Per projection, how many times this process has changed its tables (applied facts, rebuilt). */
  readonly #changes = new Map<string, number>()
  /** The question `#now` has put, and whether its turn in the database's queue has come. */
  #asked?: Asked
  /** Per projection, what each view reader last answered, while nothing has changed it since. */
  readonly #views = new Map<string, WeakMap<object, { changes: number; version: string; value: unknown }>>()

  /** The log's own name, made with it (read once: it never changes). */
  readonly logId: string

  private constructor(db: SqliteDatabase, logId: string) {
    this.#db = db
    this.logId = logId
  }

  /**
   * Opens the log. `renamed`: events whose names changed (`server_added` formerly, before names were
   * namespaced, `servers:added` now): stored facts are renamed in the same transaction, so
   * every reader and replay sees one name. Idempotent: a log with none of the old names is left as is.
   */
  static async create(
    db: SqliteDatabase,
    renamed: readonly { readonly from: string; readonly to: string }[] = [],
  ): Promise<EventStore> {
    const logId = await db.transaction(async (sql) => {
      await verifySchema(sql, db.path)
      for (const statement of SCHEMA) await sql.exec(statement)
      // One indexed look at each open; the renames run only in a log that still has an old name.
      const old = renamed.map(({ from }) => from)
      const marks = old.map(() => '?').join(', ')
      if (old.length && (await sql.get(`SELECT 1 FROM events WHERE type IN (${marks}) LIMIT 1`, old)))
        for (const { from, to } of renamed) await sql.run('UPDATE events SET type = ? WHERE type = ?', [to, from])
      // The log's own name, made once: a log made again (a data directory wiped) has another.
      await sql.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('log_id', ?)", [randomUUID()])
      // Which log of each host the cursor counts in (a column older logs lack).
      const columns = await sql.all<{ name: string }>('PRAGMA table_info(origins)')
      if (!columns.some((column) => column.name === 'log')) await sql.exec('ALTER TABLE origins ADD COLUMN log TEXT')
      await sql.run("UPDATE meta SET value = ? WHERE key = 'schema_version' AND CAST(value AS INTEGER) < ?", [
        String(SCHEMA_VERSION),
        SCHEMA_VERSION,
      ])
      return (await sql.get<{ value: string }>("SELECT value FROM meta WHERE key = 'log_id'"))?.value ?? ''
    })
    return new EventStore(db, logId)
  }

  get database(): SqliteDatabase {
    return this.#db
  }

  vaultGet(name: string): Promise<string | undefined> {
    return this.#db.read(
      async (sql) => (await sql.get<{ value: string }>('SELECT value FROM vault WHERE name = ?', [name]))?.value,
    )
  }

  async vaultSet(name: string, value: string | undefined): Promise<undefined> {
    await this.#db.transaction(async (sql) => {
      if (value === undefined) await sql.run('DELETE FROM vault WHERE name = ?', [name])
      else
        await sql.run('INSERT OR REPLACE INTO vault (name, value, updated) VALUES (?, ?, ?)', [name, value, Date.now()])
    })
    return undefined
  }

  vaultInit(name: string, value: string): Promise<string> {
    return this.#db.transaction(async (sql) => {
      await sql.run('INSERT OR IGNORE INTO vault (name, value, updated) VALUES (?, ?, ?)', [name, value, Date.now()])
      return (await sql.get<{ value: string }>('SELECT value FROM vault WHERE name = ?', [name]))?.value ?? value
    })
  }

  /**
   * Tells `listener` of every commit, synchronously and in sequence order, before the appenders
   * hear of it: a follower of this process's appends never has to read them back.
   */
  onCommitted(listener: (events: readonly StoredEvent[]) => void): void {
    this.#committed = listener
  }

  /** True while appends are being committed: their rows will reach the commit listener. */
  get committing(): boolean {
    return this.#committing
  }

  /** Appends events atomically, applying them to every projection; returns them with their sequence numbers. */
  append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    const rows = events.map(toRow)
    if (rows.length === 0) return Promise.resolve([])
    return new Promise((resolve, reject) => {
      this.#waiting.push({ rows, resolve, reject })
      if (!this.#committing) void this.#commitWaiting()
    })
  }

  /**
   * Group commit: appends that arrive while a transaction is in flight wait for it, then go in
   * together in the next one (one fsync for all of them), each answered with its own events
   * once that commit is durable. A batch that fails is retried one append at a time, so one bad
   * append never fails the others.
   */
  async #commitWaiting(): Promise<void> {
    this.#committing = true
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0)
        if (!(await this.#commit(batch)) && batch.length > 1) for (const append of batch) await this.#commit([append])
      }
    } finally {
      this.#committing = false
    }
  }

  /**
   * Inserts the appends' rows in one go and answers each of them; false when that failed (a
   * lone append is rejected with the error). The commit listener hears of it outside the
   * insert's failure path, so nothing it does can make a committed batch be inserted again.
   */
  async #commit(appends: readonly Waiting[]): Promise<boolean> {
    let stored: StoredEvent[]
    try {
      stored = await this.#insert(appends.flatMap((append) => append.rows))
    } catch (error) {
      if (appends.length > 1) return false
      appends[0]?.reject(error)
      return true
    }
    this.#committed(stored)
    let at = 0
    for (const append of appends) {
      append.resolve(stored.slice(at, at + append.rows.length))
      at += append.rows.length
    }
    return true
  }

  #insert(rows: readonly Row[]): Promise<StoredEvent[]> {
    const insert = async (sql: Sql): Promise<StoredEvent[]> => {
      const time = Date.now()
      const iso = new Date(time).toISOString()
      const stored: StoredEvent[] = []
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const chunk = rows.slice(start, start + INSERT_CHUNK)
        // One statement text for any number of rows (kept prepared), the rows as one JSON array.
        let json = '['
        for (const row of chunk)
          json += `${json.length > 1 ? ',' : ''}[${JSON.stringify(row.type)},${JSON.stringify(row.actor)},${JSON.stringify(row.payload)}]`
        const { lastId } = await sql.runPrepared(INSERT, [time, `${json}]`])
        // One statement under the write lock gets consecutive sequence numbers.
        chunk.forEach((row, i) => {
          const { type, actor, value } = row
          stored.push({ seq: lastId - chunk.length + 1 + i, time: iso, type, actor, payload: value })
        })
      }
      return stored
    }
    // Facts no projection follows, in one statement: SQLite's own transaction is enough.
    if (!rows.some((row) => this.#followed.has(row.type)) && rows.length <= INSERT_CHUNK)
      return this.#db.statement(insert)
    return this.#db.transaction(async (sql) => {
      const stored = await insert(sql)
      await this.#applyAll(sql, stored)
      return stored
    })
  }

  /**
   * Takes in events of another host's log (`origin`), in its order: those after the last one
   * taken are appended, each with `origin: {host, seq, time}` added to its payload (and `at`, the
   * time it happened, when it has none), and the cursor moves in the same transaction, so each
   * is taken exactly once whatever fails or is sent twice. Resolves to the appended events.
   */
  async ingest(
    origin: string,
    events: readonly StoredEvent[],
    through?: number,
    log?: string,
  ): Promise<{ stored: StoredEvent[]; cursor: number }> {
    const result = await this.#db.transaction(async (sql) => {
      const row = await sql.get<{ seq: number; log: string | null }>('SELECT seq, log FROM origins WHERE origin = ?', [
        origin,
      ])
      // Another log of that host (its data directory made again): counted from its start.
      const renewed = log !== undefined && row?.log != null && row.log !== log
      let cursor = renewed ? 0 : (row?.seq ?? 0)
      const time = Date.now()
      const stored: StoredEvent[] = []
      for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
        if (event.seq <= cursor) continue
        const given = (event.payload ?? {}) as Record<string, unknown>
        const payload = {
          ...given,
          at: typeof given.at === 'string' ? given.at : event.time,
          origin: { host: origin, seq: event.seq, time: event.time },
        }
        const { lastId } = await sql.run('INSERT INTO events (time, type, actor, payload) VALUES (?, ?, ?, ?)', [
          time,
          event.type,
          event.actor,
          JSON.stringify(payload),
        ])
        stored.push({ seq: lastId, time: new Date(time).toISOString(), type: event.type, actor: event.actor, payload })
        cursor = event.seq
      }
      const moved = through !== undefined && through > cursor
      if (moved) cursor = through
      if (stored.length > 0 || moved || renewed || (log !== undefined && row?.log == null))
        await sql.run('INSERT OR REPLACE INTO origins (origin, seq, log) VALUES (?, ?, ?)', [
          origin,
          cursor,
          log ?? row?.log ?? null,
        ])
      if (stored.length > 0) await this.#applyAll(sql, stored)
      return { stored, cursor }
    })
    if (result.stored.length > 0) this.#committed(result.stored)
    return result
  }

  /** How far the log has taken in `origin`'s log (the last sequence number taken, 0 for none), and which log that is. */
  origin(origin: string): Promise<{ seq: number; log?: string }> {
    return this.#db.read(async (sql) => {
      const row = await sql.get<{ seq: number; log: string | null }>('SELECT seq, log FROM origins WHERE origin = ?', [
        origin,
      ])
      return row ? { seq: row.seq, ...(row.log ? { log: row.log } : {}) } : { seq: 0 }
    })
  }

  read(query: EventQuery): Promise<StoredEvent[]> {
    const { text, params, reverse } = queryToSql(query)
    return this.#db.read(async (sql) => {
      const rows = await sql.all<EventRow>(text, params)
      const events = rows.map((row) => toStored(row))
      return reverse ? events.reverse() : events
    })
  }

  head(): Promise<number> {
    return this.#db.read(async (sql) => (await sql.get<{ seq: number }>(HEAD))?.seq ?? 0)
  }

  /** Registers a projection, creating its tables; rebuilds it when it is new or its version changed. */
  async register(projection: Projection): Promise<boolean> {
    const rebuilt = await this.#db.transaction(async (sql) => {
      for (const statement of projection.schema) await sql.exec(statement)
      const row = await sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [metaKey(projection)])
      if (row?.value === String(projection.version)) return false
      await this.#rebuild(sql, [projection])
      return true
    })
    // Only a projection whose tables exist takes part in appends.
    this.#projections.set(projection.name, projection)
    for (const type of projection.types) this.#followed.add(type)
    return rebuilt
  }

  /** Runs a read against a registered projection's tables. */
  readProjection(name: string, read: (sql: Sql) => Promise<unknown>): Promise<unknown> {
    if (!this.#projections.has(name)) throw new SmError('SM_ERR_EVENTS_UNKNOWN_PROJECTION', { projection: name })
    return this.#db.read(read)
  }

  /**
   * What `read` answers of a projection, from memory while neither this process (a fact it
   * folds, a rebuild) nor another connection (SQLite's data_version) has changed the database
   * since `read` last ran; else read again. The answer is frozen: every caller shares it.
   */
  viewProjection(name: string, read: (sql: Sql) => Promise<unknown>): Promise<unknown> {
    if (!this.#projections.has(name)) throw new SmError('SM_ERR_EVENTS_UNKNOWN_PROJECTION', { projection: name })
    const held = this.#views.get(name)?.get(read)
    if (!held) return this.#readView(name, read)
    return this.#now().then((now) =>
      held.changes === (now.changes.get(name) ?? 0) && held.version === now.version
        ? held.value
        : this.#readView(name, read),
    )
  }

  #readView(name: string, read: (sql: Sql) => Promise<unknown>): Promise<unknown> {
    return this.#db.readVersioned(async (sql, version) => {
      // Inside the database's queue: no commit can come between this count and the read.
      const changes = this.#changes.get(name) ?? 0
      let views = this.#views.get(name)
      if (!views) {
        views = new WeakMap()
        this.#views.set(name, views)
      }
      const value = deepFreeze(await read(sql))
      views.set(read, { changes, version, value })
      return value
    })
  }

  /**
   * The database's version and this process's changes to each projection, now: one question in
   * the database's queue for every view asked before that question's turn came (many readers at
   * once cost one query, and none is answered from a question put before it asked).
   */
  #now(): Asked['answer'] {
    const asked = this.#asked
    if (asked && !asked.begun) return asked.answer
    // The queue runs the job on a later turn, once `next` is made.
    const next: Asked = {
      begun: false,
      answer: this.#db.read(async (sql) => {
        next.begun = true
        const changes = new Map(this.#changes)
        return { version: await this.#db.version(sql), changes }
      }),
    }
    // A question that failed before its turn (the database could not be reopened) is shared no more.
    next.answer.catch(() => {
      next.begun = true
    })
    this.#asked = next
    return next.answer
  }

  #changed(projection: Projection): void {
    this.#changes.set(projection.name, (this.#changes.get(projection.name) ?? 0) + 1)
  }

  /** Replays the log into fresh projections, starting from the newest snapshot. */
  rebuild(): Promise<RebuildResult> {
    return this.#db.transaction((sql) => this.#rebuild(sql, [...this.#projections.values()]))
  }

  /** Checks the file's integrity and that every projection equals a replay of the log (changes nothing). */
  async check(): Promise<CheckResult> {
    const integrity = await this.#db.read(async (sql) => {
      const rows = await sql.all<{ integrity_check: string }>('PRAGMA integrity_check')
      return rows.map((row) => row.integrity_check).join('; ')
    })
    const projections = [...this.#projections.values()]
    const drifted = await this.#db.transaction(
      async (sql) => {
        const live = await Promise.all(projections.map((p) => p.snapshot(sql)))
        await this.#rebuild(sql, projections)
        const replayed = await Promise.all(projections.map((p) => p.snapshot(sql)))
        return projections.filter((_, i) => JSON.stringify(live[i]) !== JSON.stringify(replayed[i])).map((p) => p.name)
      },
      { dryRun: true },
    )
    const events = await this.#db.read(
      async (sql) => (await sql.get<{ n: number }>('SELECT count(*) AS n FROM events'))?.n ?? 0,
    )
    return { integrity, drifted, events }
  }

  /**
   * Deletes events older than `maxAgeDays` or beyond the newest `maxEvents`. A snapshot of every
   * projection at the head is written first, so a later rebuild still reaches the same state.
   */
  prune(limits: { maxAgeDays?: number; maxEvents?: number }): Promise<PruneResult> {
    return this.#db.transaction(async (sql) => {
      const head = (await sql.get<{ seq: number }>(HEAD))?.seq ?? 0
      let cutoff = 0
      if (limits.maxEvents !== undefined) cutoff = Math.max(cutoff, head - limits.maxEvents)
      if (limits.maxAgeDays !== undefined) {
        const before = Date.now() - limits.maxAgeDays * 86_400_000
        const old = await sql.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE time < ?', [before])
        cutoff = Math.max(cutoff, old?.seq ?? 0)
      }
      const oldest = (await sql.get<{ seq: number | null }>('SELECT min(seq) AS seq FROM events'))?.seq
      if (oldest == null || cutoff < oldest) return { deleted: 0, snapshotSeq: undefined }
      const state: Record<string, unknown> = {}
      for (const projection of this.#projections.values()) state[projection.name] = await projection.snapshot(sql)
      await sql.run('INSERT OR REPLACE INTO snapshots (seq, time, state) VALUES (?, ?, ?)', [
        head,
        Date.now(),
        JSON.stringify(state),
      ])
      await sql.run('DELETE FROM snapshots WHERE seq < ?', [head])
      const { changes } = await sql.run('DELETE FROM events WHERE seq <= ?', [cutoff])
      return { deleted: changes, snapshotSeq: head }
    })
  }

  close(): Promise<void> {
    return this.#db.close()
  }

  async #applyAll(sql: Sql, events: readonly StoredEvent[]): Promise<void> {
    // Counted before the change: a transaction that then rolls back only costs a view a read.
    for (const projection of this.#projections.values()) {
      const relevant = relevantTo(projection, events)
      if (relevant.length === 0) continue
      this.#changed(projection)
      await applyTo(sql, projection, relevant)
    }
  }

  async #rebuild(sql: Sql, projections: readonly Projection[]): Promise<RebuildResult> {
    const began = performance.now()
    const snapshot = await sql.get<{ seq: number; state: string }>(
      'SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1',
    )
    const state = snapshot ? (JSON.parse(snapshot.state) as Record<string, unknown>) : {}
    for (const projection of projections) {
      this.#changed(projection)
      await projection.reset(sql)
      if (snapshot && projection.name in state) await projection.restore(sql, state[projection.name])
    }
    let replayed = 0
    for (let after = snapshot?.seq ?? 0; ; ) {
      const rows = await sql.all<EventRow>('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?', [
        after,
        REPLAY_PAGE,
      ])
      if (rows.length === 0) break
      const events = rows.map((row) => toStored(row))
      for (const projection of projections) {
        const relevant = relevantTo(projection, events)
        if (relevant.length > 0) await applyTo(sql, projection, relevant)
      }
      replayed += rows.length
      after = rows[rows.length - 1]?.seq ?? after
    }
    for (const projection of projections) {
      await sql.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [
        metaKey(projection),
        String(projection.version),
      ])
    }
    return {
      projections: projections.map((p) => p.name),
      replayed,
      fromSnapshot: snapshot?.seq,
      ms: performance.now() - began,
    }
  }
}

/** Whether an event came from another host's log (events:ingest marks its payload with `origin`). */
export function isIngested(event: StoredEvent): boolean {
  const origin = (event.payload as { origin?: unknown } | null)?.origin
  return typeof origin === 'object' && origin !== null && typeof (origin as { host?: unknown }).host === 'string'
}

const HEAD = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS seq"

/** The events `projection` folds: of its types, and another host's (events:ingest) only into the projections that describe every host. */
function relevantTo(projection: Projection, events: readonly StoredEvent[]): StoredEvent[] {
  return events.filter(
    (event) => projection.types.includes(event.type) && (projection.remote === true || !isIngested(event)),
  )
}

/** Folds `relevant` (relevantTo's, never empty) into `projection`; a failure names the projection and the events. */
async function applyTo(sql: Sql, projection: Projection, relevant: readonly StoredEvent[]): Promise<void> {
  try {
    await projection.apply(sql, relevant)
  } catch (error) {
    const first = relevant[0] as StoredEvent
    const last = relevant[relevant.length - 1] as StoredEvent
    const events = first === last ? `#${first.seq} (${first.type})` : `#${first.seq} to #${last.seq}`
    throw new SmError(
      'SM_ERR_EVENTS_PROJECTION_FAILED',
      { projection: projection.name, events, reason: reasonOf(error) },
      { cause: error },
    )
  }
}

function metaKey(projection: Projection): string {
  return `projection:${projection.name}`
}

interface Waiting {
  readonly rows: readonly Row[]
  resolve(events: StoredEvent[]): void
  reject(error: unknown): void
}

interface Row {
  readonly type: string
  readonly actor: string
  readonly payload: string
  readonly value: unknown
}

function toRow(event: NewEvent): Row {
  const invalid = (reason: string) => new SmError('SM_ERR_EVENTS_INVALID_EVENT', { reason })
  if (typeof event?.type !== 'string' || event.type.trim() === '' || event.type.length > 200) {
    throw invalid('its type must be a non-empty string of at most 200 characters')
  }
  if (typeof event.actor !== 'string' || event.actor.trim() === '') throw invalid(`'${event.type}' has no actor`)
  let payload: string | undefined
  try {
    payload = JSON.stringify(event.payload ?? null)
  } catch (error) {
    throw invalid(`the payload of '${event.type}' is not JSON (${reasonOf(error)})`)
  }
  if (payload === undefined) throw invalid(`the payload of '${event.type}' is not JSON`)
  // Projections and listeners get the payload as the log holds it (a Date becomes its string,
  // undefined fields vanish), so live state and a replay can never differ.
  return { type: wellFormed(event.type), actor: wellFormed(event.actor), payload, value: JSON.parse(payload) }
}

/** A lone UTF-16 surrogate becomes U+FFFD, as SQLite stores it, so the live event equals the stored one. */
function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATE_ALL, '\ufffd') : text
}
const LONE_SURROGATE = /\p{Cs}/u
const LONE_SURROGATE_ALL = /\p{Cs}/gu

function toStored(row: EventRow): StoredEvent {
  return {
    seq: row.seq,
    time: new Date(row.time).toISOString(),
    type: row.type,
    actor: row.actor,
    payload: JSON.parse(row.payload),
  }
}
