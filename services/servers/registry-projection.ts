import type { Projection, Sql } from '../events/contract'
import type { ServerRecord } from './contract'

/** The server registry as a projection of `servers:added` and `servers:removed` facts. */
export const serversProjection: Projection = {
  name: 'servers',
  version: 2,
  types: ['servers:added', 'servers:removed', 'servers:setting_changed'],
  schema: ['CREATE TABLE IF NOT EXISTS servers (name TEXT PRIMARY KEY, record TEXT NOT NULL)'],

  async apply(sql, events) {
    for (const event of events) {
      if (event.type === 'servers:added') {
        const { server } = event.payload as { server: ServerRecord }
        await sql.run('INSERT OR REPLACE INTO servers (name, record) VALUES (?, ?)', [
          server.name,
          JSON.stringify(server),
        ])
      } else if (event.type === 'servers:setting_changed') {
        const { name, key, value } = event.payload as { name: string; key: string; value: unknown }
        const row = await sql.get<{ record: string }>('SELECT record FROM servers WHERE name = ?', [name])
        if (!row) continue
        const record = JSON.parse(row.record) as ServerRecord
        // Null-prototype: the keys are the ones set (checked, but a replay must not depend on it).
        const settings: Record<string, unknown> = Object.assign(Object.create(null), record.settings)
        if (value === undefined) delete settings[key]
        else settings[key] = value
        await sql.run('UPDATE servers SET record = ? WHERE name = ?', [JSON.stringify({ ...record, settings }), name])
      } else {
        await sql.run('DELETE FROM servers WHERE name = ?', [(event.payload as { name: string }).name])
      }
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM servers')
  },

  async snapshot(sql) {
    return readServers(sql)
  },

  async restore(sql, state) {
    for (const server of state as ServerRecord[])
      await sql.run('INSERT OR REPLACE INTO servers (name, record) VALUES (?, ?)', [
        server.name,
        JSON.stringify(server),
      ])
  },
}

export async function readServers(sql: Sql): Promise<ServerRecord[]> {
  const rows = await sql.all<{ record: string }>('SELECT record FROM servers ORDER BY name')
  return rows.map((row) => JSON.parse(row.record) as ServerRecord)
}
