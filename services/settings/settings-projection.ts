import type { Projection, Sql, StoredEvent } from '../events/contract'
import { assignPath, isTree, type Tree } from './dot-path'

interface Row {
  key: string
  value: string
}

/**
 * Global settings as a projection of `after_setting_update` facts: one row per top-level key
 * holding that section's stored values as JSON (defaults are merged at read time, never stored).
 */
export const settingsProjection: Projection = {
  name: 'settings',
  version: 1,
  types: ['after_setting_update'],
  schema: ['CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID'],

  async apply(sql, events) {
    const sections = new Map<string, Tree>()
    for (const event of events) {
      const change = successfulChange(event)
      if (!change) continue
      const [top, ...rest] = change.segments as [string, ...string[]]
      if (!sections.has(top)) sections.set(top, await readSection(sql, top))
      if (rest.length) assignPath(sections.get(top) as Tree, rest, change.value)
      else if (isTree(change.value)) sections.set(top, structuredClone(change.value))
    }
    for (const [key, value] of sections) {
      await sql.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [key, JSON.stringify(value)])
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM settings')
  },

  async snapshot(sql) {
    const rows = await sql.all<Row>('SELECT key, value FROM settings ORDER BY key')
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value)]))
  },

  async restore(sql, state) {
    for (const [key, value] of Object.entries(state as Tree)) {
      await sql.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [key, JSON.stringify(value)])
    }
  },
}

/** Reads the stored overrides of one top-level section. */
export async function readSection(sql: Sql, top: string): Promise<Tree> {
  const row = await sql.get<Row>('SELECT value FROM settings WHERE key = ?', [top])
  return row ? (JSON.parse(row.value) as Tree) : {}
}

export async function readAll(sql: Sql): Promise<Tree> {
  return (await settingsProjection.snapshot(sql)) as Tree
}

function successfulChange(event: StoredEvent): { segments: string[]; value: unknown } | undefined {
  const payload = event.payload as { key?: unknown; value?: unknown; result?: { status?: unknown } }
  if (payload?.result?.status !== 'success' || typeof payload.key !== 'string') return undefined
  return { segments: payload.key.split('.'), value: payload.value }
}
