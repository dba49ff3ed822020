import type { Projection } from '../events/contract'
import type { SettingMarkedSecret } from './contract'

/**
 * The setting keys marked secret, as a projection of `settings:marked_secret` facts, so every
 * process of the data directory (a CLI next to a manager, a replay, a snapshot after retention)
 * knows them. Keys declared secret in code (`defineSettings`) need no fact.
 */
export const secretsProjection: Projection = {
  name: 'setting_secrets',
  version: 1,
  types: ['settings:marked_secret'],
  schema: ['CREATE TABLE IF NOT EXISTS secret_settings (key TEXT PRIMARY KEY, by TEXT NOT NULL)'],

  async apply(sql, events) {
    for (const event of events) {
      const { key, by } = event.payload as Partial<SettingMarkedSecret>
      if (typeof key === 'string')
        await sql.run('INSERT OR IGNORE INTO secret_settings (key, by) VALUES (?, ?)', [key, String(by ?? event.actor)])
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM secret_settings')
  },

  async snapshot(sql) {
    return sql.all<SettingMarkedSecret>('SELECT key, by FROM secret_settings ORDER BY key')
  },

  async restore(sql, state) {
    for (const { key, by } of state as SettingMarkedSecret[])
      await sql.run('INSERT OR IGNORE INTO secret_settings (key, by) VALUES (?, ?)', [key, by])
  },
}

/** Every key marked secret. */
export async function markedSecretKeys(sql: import('../events/contract').Sql): Promise<string[]> {
  return (await sql.all<{ key: string }>('SELECT key FROM secret_settings')).map((row) => row.key)
}
