import type { Projection, Sql } from '../events/contract'
import { hostOf } from './registry-projection'
import type { ServerStatus } from './supervisor/run-files'

export interface RecordedStatus {
  readonly name: string
  readonly status: ServerStatus
  readonly since: string
  /** The last journal entry (status.jsonl) turned into a fact. */
  readonly journalSeq: number
}

/**
 * Each server's last recorded status, a projection of `after_server_status_change` facts. It also
 * remembers how far the server's status journal has been read, so an entry becomes a fact once.
 * A server added again under an old name starts over (its run directory is new).
 */
export const statusProjection: Projection = {
  name: 'server_status',
  version: 1,
  types: ['after_server_status_change', 'servers:added', 'servers:removed'],
  // The host agents' servers too (their status facts, taken in); a name held elsewhere is left alone.
  remote: true,
  schema: [
    'CREATE TABLE IF NOT EXISTS server_status (name TEXT PRIMARY KEY, status TEXT NOT NULL, since TEXT NOT NULL, journal_seq INTEGER NOT NULL)',
  ],

  async apply(sql, events) {
    for (const event of events) {
      const name =
        event.type === 'servers:added'
          ? (event.payload as { server: { name: string } }).server.name
          : ((event.payload as { serverName?: string; name?: string }).serverName ??
            (event.payload as { name: string }).name)
      if (!(await heldBy(sql, name, hostOf(event.payload)))) continue
      if (event.type === 'after_server_status_change') {
        const p = event.payload as { serverName: string; status: string; at: string; journalSeq: number }
        await sql.run('INSERT OR REPLACE INTO server_status (name, status, since, journal_seq) VALUES (?, ?, ?, ?)', [
          p.serverName,
          p.status,
          p.at,
          p.journalSeq,
        ])
      } else {
        await sql.run('DELETE FROM server_status WHERE name = ?', [name])
      }
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM server_status')
  },

  async snapshot(sql) {
    return readStatuses(sql)
  },

  async restore(sql, state) {
    for (const s of state as RecordedStatus[])
      await sql.run('INSERT OR REPLACE INTO server_status (name, status, since, journal_seq) VALUES (?, ?, ?, ?)', [
        s.name,
        s.status,
        s.since,
        s.journalSeq,
      ])
  },
}

export async function readStatuses(sql: Sql): Promise<RecordedStatus[]> {
  const rows = await sql.all<{ name: string; status: ServerStatus; since: string; journal_seq: number }>(
    'SELECT name, status, since, journal_seq FROM server_status ORDER BY name',
  )
  return rows.map((r) => ({ name: r.name, status: r.status, since: r.since, journalSeq: r.journal_seq }))
}

/** How far a server's status journal has been recorded (0: not at all). */
export async function recordedJournalSeq(sql: Sql, name: string): Promise<number> {
  const row = await sql.get<{ journal_seq: number }>('SELECT journal_seq FROM server_status WHERE name = ?', [name])
  return row?.journal_seq ?? 0
}

/**
 * Whether a fact about `name` from `host` (undefined: this machine) concerns the server the
 * registry holds under that name (or one it no longer holds). The registry folds first: it is
 * registered before this projection.
 */
async function heldBy(sql: Sql, name: string, host: string | undefined): Promise<boolean> {
  const row = await sql.get<{ record: string }>('SELECT record FROM servers WHERE name = ?', [name])
  return !row || (JSON.parse(row.record) as { host?: string }).host === host
}
