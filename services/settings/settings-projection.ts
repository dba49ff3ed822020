import type { Projection, Sql, StoredEvent } from '../events/contract'
import type { SettingMode } from './contract'
import { assignPath, getPath, isTree, type Tree } from './dot-path'

interface Row {
  key: string
  value: string
}

/**
 * Global settings as a projection of `after_setting_update` facts: one row per leaf value
 * (`custom.motd.text`), so a change rewrites only the keys it touches, however much else is
 * stored. An empty object is a leaf too, so `custom.x = {}` exists. Defaults are merged at read
 * time, never stored.
 */
export const settingsProjection: Projection = {
  name: 'settings',
  version: 2,
  types: ['after_setting_update'],
  // A rowid table: its key index stays small however large the values are (the first version's
  // WITHOUT ROWID table of whole sections made every lookup walk megabytes).
  schema: [
    'DROP TABLE IF EXISTS settings',
    'CREATE TABLE IF NOT EXISTS setting_values (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  ],

  async apply(sql, events) {
    const batch = new LeafBatch()
    for (const event of events) {
      const change = successfulChange(event)
      if (!change) continue
      // Merging {} creates the key only if nothing is stored under it: that takes a read.
      if (change.mode === 'merge' && isTree(change.value) && Object.keys(change.value).length === 0) {
        await batch.flush(sql)
        await applyChange(sql, change.key, change.value, change.mode)
      } else batch.add(change.key, change.value, change.mode)
    }
    await batch.flush(sql)
  },

  async reset(sql) {
    await sql.run('DELETE FROM setting_values')
  },

  async snapshot(sql) {
    const rows = await sql.all<Row>('SELECT key, value FROM setting_values ORDER BY key')
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value)]))
  },

  async restore(sql, state) {
    // Leaf rows; a snapshot of the first version held whole sections, which flatten the same way.
    for (const [key, value] of Object.entries(state as Tree)) await insertLeaves(sql, key, value)
  },
}

/** The stored value at a key (assembled from its leaves), or undefined when nothing is stored there. */
export async function readStored(sql: Sql, segments: readonly string[]): Promise<unknown> {
  const key = segments.join('.')
  const ancestors = segments.slice(0, -1).map((_, n) => segments.slice(0, n + 1).join('.'))
  // Two index range reads; one WHERE with OR would make SQLite scan every (large) row.
  const rows = [
    ...(ancestors.length
      ? await sql.all<Row>(
          `SELECT key, value FROM setting_values WHERE key IN (${ancestors.map(() => '?').join(',')}) ORDER BY key`,
          ancestors,
        )
      : []),
    ...(await sql.all<Row>(SUBTREE, [key, `${key}/`])).filter((row) => isAtOrUnder(row.key, key)),
  ]
  if (rows.length === 0) return undefined
  return getPath(assemble(rows), segments)
}

/** Every stored value, as one tree. */
export async function readAll(sql: Sql): Promise<Tree> {
  return assemble(await sql.all<Row>('SELECT key, value FROM setting_values ORDER BY key'))
}

/** The leaf keys stored at or under a key. */
export async function storedKeys(sql: Sql, key: string): Promise<string[]> {
  const rows = await sql.all<Row>(SUBTREE, [key, `${key}/`])
  return rows.map((row) => row.key).filter((stored) => isAtOrUnder(stored, key))
}

// The key and everything under it, as one index range ('/' follows '.'); the range also holds
// siblings such as `key-x`, which isAtOrUnder drops.
const SUBTREE = 'SELECT key, value FROM setting_values WHERE key >= ? AND key < ? ORDER BY key'

function isAtOrUnder(stored: string, key: string): boolean {
  return stored === key || stored.startsWith(`${key}.`)
}

function assemble(rows: readonly Row[]): Tree {
  const tree: Tree = {}
  for (const row of rows) assignPath(tree, row.key.split('.'), JSON.parse(row.value))
  return tree
}

async function applyChange(sql: Sql, key: string, value: unknown, mode: SettingMode): Promise<void> {
  const segments = key.split('.')
  const ancestors = segments.slice(0, -1).map((_, n) => segments.slice(0, n + 1).join('.'))
  // A leaf above the key (custom.a = 5, now setting custom.a.b) stops being a leaf.
  if (ancestors.length)
    await sql.run(`DELETE FROM setting_values WHERE key IN (${ancestors.map(() => '?').join(',')})`, ancestors)
  if (mode === 'merge' && isTree(value)) {
    await sql.run('DELETE FROM setting_values WHERE key = ?', [key])
    const leaves = Object.keys(value).length === 0 ? [] : flatten(key, value)
    for (const [leaf, item] of leaves) {
      await deleteUnder(sql, leaf)
      await sql.run('INSERT OR REPLACE INTO setting_values (key, value) VALUES (?, ?)', [leaf, JSON.stringify(item)])
    }
    // Merging {} into nothing still creates the key.
    if (leaves.length === 0 && (await storedKeys(sql, key)).length === 0) await insertLeaves(sql, key, {})
    return
  }
  await sql.run('DELETE FROM setting_values WHERE key = ?', [key])
  await deleteUnder(sql, key)
  if (mode !== 'unset') await insertLeaves(sql, key, value)
}

const DELETED = Symbol('deleted')
const CHUNK = 200

/**
 * The net effect of a run of changes on the leaf rows, folded in memory and written in a few
 * multi-row statements: a replay of a million changes must not cost four statements each.
 * Subtree deletions are written first, then the final state of every key the run touched, so
 * the order of the changes is kept.
 */
class LeafBatch {
  readonly #subtrees = new Set<string>()
  readonly #leaves = new Map<string, unknown>()

  add(key: string, value: unknown, mode: SettingMode): void {
    const segments = key.split('.')
    // A leaf above the key stops being a leaf.
    for (let n = 1; n < segments.length; n++) this.#leaves.set(segments.slice(0, n).join('.'), DELETED)
    if (mode === 'merge' && isTree(value)) {
      this.#leaves.set(key, DELETED)
      for (const [leaf, item] of flatten(key, value)) {
        this.#deleteUnder(leaf)
        this.#leaves.set(leaf, item)
      }
      return
    }
    this.#leaves.set(key, DELETED)
    this.#deleteUnder(key)
    if (mode !== 'unset') for (const [leaf, item] of flatten(key, value)) this.#leaves.set(leaf, item)
  }

  async flush(sql: Sql): Promise<void> {
    const ranges = [...this.#subtrees].flatMap((key) => [`${key}.`, `${key}/`])
    for (let i = 0; i < ranges.length; i += CHUNK * 2) {
      const chunk = ranges.slice(i, i + CHUNK * 2)
      const where = Array.from({ length: chunk.length / 2 }, () => '(key > ? AND key < ?)').join(' OR ')
      await sql.run(`DELETE FROM setting_values WHERE ${where}`, chunk)
    }
    const gone = [...this.#leaves].filter(([, value]) => value === DELETED).map(([key]) => key)
    for (let i = 0; i < gone.length; i += CHUNK) {
      const chunk = gone.slice(i, i + CHUNK)
      await sql.run(`DELETE FROM setting_values WHERE key IN (${chunk.map(() => '?').join(',')})`, chunk)
    }
    const kept = [...this.#leaves].filter(([, value]) => value !== DELETED)
    for (let i = 0; i < kept.length; i += CHUNK) {
      const chunk = kept.slice(i, i + CHUNK)
      await sql.run(
        `INSERT OR REPLACE INTO setting_values (key, value) VALUES ${chunk.map(() => '(?, ?)').join(',')}`,
        chunk.flatMap(([key, value]) => [key, JSON.stringify(value)]),
      )
    }
    this.#subtrees.clear()
    this.#leaves.clear()
  }

  // Rows under `key` go, in the table (at flush) and in this batch (now).
  #deleteUnder(key: string): void {
    this.#subtrees.add(key)
    for (const leaf of this.#leaves.keys()) if (leaf.startsWith(`${key}.`)) this.#leaves.set(leaf, DELETED)
  }
}

async function deleteUnder(sql: Sql, key: string): Promise<void> {
  await sql.run('DELETE FROM setting_values WHERE key > ? AND key < ?', [`${key}.`, `${key}/`])
}

async function insertLeaves(sql: Sql, key: string, value: unknown): Promise<void> {
  for (const [leaf, item] of flatten(key, value))
    await sql.run('INSERT OR REPLACE INTO setting_values (key, value) VALUES (?, ?)', [leaf, JSON.stringify(item)])
}

/** `custom.motd` + `{text: 'hi', style: {bold: true}}` → its leaf keys and values ({} and lists are leaves). */
function flatten(key: string, value: unknown): [string, unknown][] {
  if (!isTree(value) || Object.keys(value).length === 0) return [[key, value]]
  return Object.entries(value).flatMap(([child, item]) => flatten(`${key}.${child}`, item))
}

function successfulChange(event: StoredEvent): { key: string; value: unknown; mode: SettingMode } | undefined {
  const payload = event.payload as { key?: unknown; value?: unknown; mode?: unknown; result?: { status?: unknown } }
  if (payload?.result?.status !== 'success' || typeof payload.key !== 'string') return undefined
  // Facts from before modes existed replaced what was there.
  const mode = payload.mode === 'merge' || payload.mode === 'unset' ? payload.mode : 'replace'
  return { key: payload.key, value: payload.value, mode }
}
