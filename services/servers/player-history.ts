import type { Projection, Sql, StoredEvent } from '../events/contract'
import type { PlayerRecord } from './contract'
import type { ServerStatus } from './supervisor/run-files'

export type { PlayerRecord } from './contract'

interface Row {
  server: string
  name: string
  id: string | null
  first_seen: string
  last_seen: string
  joins: number
  played_ms: number
  online_since: string | null
}

/**
 * Statuses in which the game no longer runs (or runs anew): every session still open ends then,
 * in the history and in the manager's tracker alike.
 */
export const SESSIONS_END: readonly ServerStatus[] = ['starting', 'stopped', 'crashed', 'error']

const UPSERT =
  'INSERT OR REPLACE INTO player_history (server, name, id, first_seen, last_seen, joins, played_ms, online_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'

/**
 * Who played on each server: a projection of `after_player_join` and `after_player_leave` facts
 * (the manager's player tracker reports them), keyed by server and name. A join opens a session,
 * a leave closes it and adds its length; a status change that ends the game (recorded also when
 * no manager watched, with when it happened) closes every session still open then, so a leave
 * the manager never saw does not count the time after the game ended (an end found later: after
 * the game was last known to live, `lastKnown`). A leave found when the manager looked again
 * (`unseen`) closes the session when the player was last seen (its `at`). Times are the facts'
 * own, so a replay gives the same rows.
 */
export const playerHistoryProjection: Projection = {
  name: 'player_history',
  version: 1,
  types: ['after_player_join', 'after_player_leave', 'after_server_status_change', 'servers:removed'],
  // Players of the host agents' servers too (their facts, taken in).
  remote: true,
  schema: [
    `CREATE TABLE IF NOT EXISTS player_history (server TEXT NOT NULL, name TEXT NOT NULL, id TEXT, first_seen TEXT NOT NULL,
      last_seen TEXT NOT NULL, joins INTEGER NOT NULL, played_ms INTEGER NOT NULL, online_since TEXT, PRIMARY KEY (server, name))`,
  ],
  async apply(sql, events) {
    for (const event of events) await applyOne(sql, event)
  },
  async reset(sql) {
    await sql.run('DELETE FROM player_history')
  },
  async snapshot(sql) {
    return sql.all<Row>('SELECT * FROM player_history ORDER BY server, name')
  },
  async restore(sql, state) {
    for (const row of state as Row[]) await save(sql, row)
  },
}

async function applyOne(sql: Sql, event: StoredEvent): Promise<void> {
  if (event.type === 'servers:removed') {
    await sql.run('DELETE FROM player_history WHERE server = ?', [(event.payload as { name: string }).name])
    return
  }
  if (event.type === 'after_server_status_change') {
    const p = event.payload as { serverName: string; status: ServerStatus; at?: string; lastKnown?: string }
    if (!SESSIONS_END.includes(p.status)) return
    const open = await sql.all<Row>('SELECT * FROM player_history WHERE server = ? AND online_since IS NOT NULL', [
      p.serverName,
    ])
    // An end nobody saw was found later: the sessions end when the game was last known to live.
    const lastKnown = p.lastKnown !== undefined && Number.isFinite(Date.parse(p.lastKnown)) ? p.lastKnown : undefined
    for (const row of open) await save(sql, close(row, lastKnown ?? p.at ?? event.time))
    return
  }
  const p = event.payload as { serverName: string; name: string; id?: string; at?: string }
  // A leave found after the fact (`unseen`) says when the player was last seen.
  const at = event.type === 'after_player_leave' && p.at ? earlier(p.at, event.time) : event.time
  const found = await sql.get<Row>('SELECT * FROM player_history WHERE server = ? AND name = ?', [p.serverName, p.name])
  // A leave of someone never seen joining (online when the manager came): known from now on.
  const row: Row = found
    ? close(found, at)
    : {
        server: p.serverName,
        name: p.name,
        id: null,
        first_seen: at,
        last_seen: at,
        joins: 0,
        played_ms: 0,
        online_since: null,
      }
  row.id = p.id || row.id
  if (event.type === 'after_player_join') {
    row.joins++
    row.online_since = at
  }
  await save(sql, row)
}

/** The row with its open session (if any) ended at `at`, its length added. */
function close(row: Row, at: string): Row {
  const closed = { ...row, last_seen: later(row.last_seen, at) }
  if (row.online_since !== null) {
    closed.played_ms += span(row.online_since, at)
    closed.online_since = null
  }
  return closed
}

function save(sql: Sql, r: Row) {
  return sql.run(UPSERT, [r.server, r.name, r.id, r.first_seen, r.last_seen, r.joins, r.played_ms, r.online_since])
}

/** Milliseconds from `from` to `to`, never negative (a fact recorded late may carry an earlier time). */
function span(from: string, to: string): number {
  return Math.max(0, Date.parse(to) - Date.parse(from))
}

function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a
}

function earlier(a: string, b: string): string {
  return Date.parse(b) < Date.parse(a) ? b : a
}

/** A server's players, the latest seen first; an online player's time counts up to `now`. */
export async function readPlayerHistory(sql: Sql, server: string, now = Date.now()): Promise<PlayerRecord[]> {
  const rows = await sql.all<Row>('SELECT * FROM player_history WHERE server = ? ORDER BY last_seen DESC, name', [
    server,
  ])
  return rows.map((r) => ({
    name: r.name,
    id: r.id ?? undefined,
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
    joins: r.joins,
    playedMs: r.played_ms + (r.online_since === null ? 0 : span(r.online_since, new Date(now).toISOString())),
    online: r.online_since !== null,
    onlineSince: r.online_since ?? undefined,
  }))
}
