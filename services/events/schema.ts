import { SmError } from '../../kernel'
import type { Sql } from './contract'

/** 2: event names are namespaced (`servers:added`, formerly `server_added`); an older version refuses the log. */
export const SCHEMA_VERSION = 2
const APPLICATION = 'server-manager'

export const SCHEMA: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
  // AUTOINCREMENT: a sequence number is never reused, even after retention deletes old rows.
  `CREATE TABLE IF NOT EXISTS events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     time INTEGER NOT NULL,
     type TEXT NOT NULL,
     actor TEXT NOT NULL,
     payload TEXT NOT NULL
   )`,
  'CREATE INDEX IF NOT EXISTS events_by_type ON events (type, seq)',
  'CREATE INDEX IF NOT EXISTS events_by_time ON events (time)',
  // Secrets beside the log, never in it (events:vault_*): not replayed, not snapshotted.
  'CREATE TABLE IF NOT EXISTS vault (name TEXT PRIMARY KEY, value TEXT NOT NULL, updated INTEGER NOT NULL) WITHOUT ROWID',
  'CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, state TEXT NOT NULL)',
  // How far the log has taken in each other host's log (events:ingest): written in the same
  // transaction as the events, so each of them is taken exactly once.
  'CREATE TABLE IF NOT EXISTS origins (origin TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID',
  `INSERT OR IGNORE INTO meta (key, value) VALUES ('application', '${APPLICATION}'), ('schema_version', '${SCHEMA_VERSION}')`,
]

/**
 * Refuses a database that belongs to something else or was written by a newer version,
 * before anything is created in it.
 */
export async function verifySchema(sql: Sql, path: string): Promise<void> {
  const tables = await sql.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
  if (tables.length === 0) return
  const hasMeta = tables.some((t) => t.name === 'meta')
  const rows = hasMeta ? await sql.all<{ key: string; value: string }>('SELECT key, value FROM meta') : []
  const meta = new Map(rows.map((row) => [row.key, row.value]))
  if (meta.get('application') !== APPLICATION) {
    throw new SmError('SM_ERR_DB_CORRUPT', { path, reason: 'it holds tables of another application' })
  }
  const found = Number(meta.get('schema_version'))
  if (found > SCHEMA_VERSION) throw new SmError('SM_ERR_DB_NEWER_SCHEMA', { path, found, supported: SCHEMA_VERSION })
}
