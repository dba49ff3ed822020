import type { EventMap } from '../../kernel'
import type { Projection, Sql, StoredEvent } from '../events/contract'
import type { BlockedLoop, PluginError, PluginRecord } from './contract'

/** Facts about plugins, besides `after_set_plugin_status`. */
export const PLUGIN_FACTS = [
  'plugins:discovered',
  'plugins:loaded',
  'plugins:failed',
  'plugins:missing',
  'plugins:hook_failed',
  'plugins:blocked',
  'plugins:unblocked',
] as const

type DiscoveredFact = EventMap['plugins:discovered']

/** A registry record plus what the loader needs to skip re-importing unchanged plugins. */
export type StoredRecord = PluginRecord & {
  readonly hash: string
  /** Its class's statics as last imported (absent when recorded by an older version). */
  readonly requires?: readonly string[]
  readonly secretSettings?: readonly string[] | false | null
  /** The methods named like a hook that its class defines, as last imported (absent when recorded by an older version). */
  readonly methods?: readonly string[]
}

/** Whether a load runs the plugin: enabled, its files there and whole, not kept out by the watchdog. */
export function mayLoad(record: StoredRecord): boolean {
  return record.enabled && !record.blocked && record.state !== 'missing' && record.state !== 'invalid'
}

type Payload = Record<string, unknown> & { name?: string; pluginName?: string }

/** The plugin registry as a projection of plugin facts: one row per plugin ever discovered. */
export const registryProjection: Projection = {
  name: 'plugins',
  version: 1,
  types: [...PLUGIN_FACTS, 'after_set_plugin_status'],
  schema: ['CREATE TABLE IF NOT EXISTS plugins (name TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID'],

  async apply(sql, events) {
    const records = new Map<string, StoredRecord | undefined>()
    for (const event of events) {
      const payload = event.payload as Payload
      const name = payload.name ?? payload.pluginName
      if (typeof name !== 'string') continue
      if (!records.has(name)) records.set(name, await readRecord(sql, name))
      records.set(name, fold(records.get(name), event))
    }
    for (const [name, record] of records) {
      if (record)
        await sql.run('INSERT OR REPLACE INTO plugins (name, record) VALUES (?, ?)', [name, JSON.stringify(record)])
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM plugins')
  },

  async snapshot(sql) {
    return Object.fromEntries((await readAllRecords(sql)).map((record) => [record.name, record]))
  },

  async restore(sql, state) {
    for (const [name, record] of Object.entries(state as Record<string, StoredRecord>)) {
      await sql.run('INSERT OR REPLACE INTO plugins (name, record) VALUES (?, ?)', [name, JSON.stringify(record)])
    }
  },
}

export async function readRecord(sql: Sql, name: string): Promise<StoredRecord | undefined> {
  const row = await sql.get<{ record: string }>('SELECT record FROM plugins WHERE name = ?', [name])
  return row ? (JSON.parse(row.record) as StoredRecord) : undefined
}

export async function readAllRecords(sql: Sql): Promise<StoredRecord[]> {
  const rows = await sql.all<{ record: string }>('SELECT record FROM plugins ORDER BY name')
  return rows.map((row) => JSON.parse(row.record) as StoredRecord)
}

function fold(record: StoredRecord | undefined, event: StoredEvent): StoredRecord | undefined {
  const p = event.payload as Payload
  switch (event.type) {
    case 'plugins:discovered': {
      // Our own fact, recorded by registry-facts.ts from its schema's type.
      const d = event.payload as DiscoveredFact
      const base = record ?? { enabled: d.enabledByDefault, state: 'disabled' as const, hookFailures: 0 }
      // A discovery judges the files afresh: what made them missing or invalid before no longer
      // holds, and a plugin still refused gets its plugins:failed right after.
      const stale = base.state === 'missing' || base.state === 'invalid'
      return {
        ...base,
        state: stale ? 'disabled' : base.state,
        ...(base.state === 'invalid' && { error: undefined }),
        name: d.name,
        version: d.version,
        author: d.author,
        description: d.description,
        source: d.source,
        path: d.path,
        hash: d.hash,
        requires: d.requires,
        // null: declared none (JSON keeps no undefined), so "not recorded" stays distinguishable.
        secretSettings: d.requires === undefined ? undefined : (d.secretSettings ?? null),
        methods: d.methods,
      }
    }
    case 'after_set_plugin_status': {
      if (!record || (p.result as { status?: string } | undefined)?.status !== 'success') return record
      const enabled = p.enabled === true
      // Enabling is the admin's explicit word that a blocked plugin may run again.
      if (enabled) return { ...record, enabled, blocked: undefined }
      return { ...record, enabled, state: record.state === 'missing' ? 'missing' : 'disabled', error: undefined }
    }
    case 'plugins:loaded':
      return record && { ...record, state: 'loaded', error: undefined }
    case 'plugins:failed':
      return record && { ...record, state: p.invalid === true ? 'invalid' : 'failed', error: p.error as PluginError }
    case 'plugins:blocked': {
      if (!record) return record
      const { hook, ms, at } = event.payload as BlockedLoop
      return { ...record, state: 'failed', error: p.error as PluginError, blocked: { hook, ms, at } }
    }
    case 'plugins:unblocked':
      return record && { ...record, blocked: undefined }
    case 'plugins:missing':
      return record && { ...record, state: 'missing' }
    case 'plugins:hook_failed': {
      if (!record) return record
      const lastHookError = { ...(p.error as PluginError), event: String(p.event) }
      return { ...record, hookFailures: record.hookFailures + Number(p.count ?? 1), lastHookError }
    }
    default:
      return record
  }
}
