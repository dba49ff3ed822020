import type { Projection, Sql } from '../events/contract'
import type { ServerRecord } from './contract'
import { applyEdit } from './describe-server'

/**
 * The server registry as a projection of `servers:added`, `servers:edited` (`server edit`),
 * `servers:setting_changed` and `servers:removed` facts: this
 * machine's servers and, taken in from the host agents' logs (events:ingest), theirs, each with
 * its `host`. A name is one server's: a host's fact about a name another host (or this machine)
 * holds is left out; so is this machine's own about a host's, but for a removal that forgets it.
 */
export const serversProjection: Projection = {
  name: 'servers',
  version: 2,
  types: ['servers:added', 'servers:removed', 'servers:setting_changed', 'servers:edited'],
  remote: true,
  schema: ['CREATE TABLE IF NOT EXISTS servers (name TEXT PRIMARY KEY, record TEXT NOT NULL)'],

  async apply(sql, events) {
    for (const event of events) {
      // A removal that forgets a host's server (server remove --forget) speaks for that host.
      const forgotten =
        event.type === 'servers:removed' ? (event.payload as { forgotten?: string }).forgotten : undefined
      const host = hostOf(event.payload) ?? forgotten
      const name =
        event.type === 'servers:added'
          ? (event.payload as { server: ServerRecord }).server.name
          : (event.payload as { name: string }).name
      const row = await sql.get<{ record: string }>('SELECT record FROM servers WHERE name = ?', [name])
      const held = row ? (JSON.parse(row.record) as ServerRecord).host : undefined
      if (row && held !== host) continue
      if (event.type === 'servers:added') {
        const { server } = event.payload as { server: ServerRecord }
        await sql.run('INSERT OR REPLACE INTO servers (name, record) VALUES (?, ?)', [
          server.name,
          JSON.stringify(host ? { ...server, host } : server),
        ])
      } else if (event.type === 'servers:edited') {
        const { changes } = event.payload as { changes: Record<string, unknown> }
        if (!row) continue
        const record = applyEdit(JSON.parse(row.record) as ServerRecord, changes ?? {})
        await sql.run('UPDATE servers SET record = ? WHERE name = ?', [JSON.stringify(record), name])
      } else if (event.type === 'servers:setting_changed') {
        const { key, value } = event.payload as { name: string; key: string; value: unknown }
        if (!row) continue
        const record = JSON.parse(row.record) as ServerRecord
        // Null-prototype: the keys are the ones set (checked, but a replay must not depend on it).
        const settings: Record<string, unknown> = Object.assign(Object.create(null), record.settings)
        if (value === undefined) delete settings[key]
        else settings[key] = value
        await sql.run('UPDATE servers SET record = ? WHERE name = ?', [JSON.stringify({ ...record, settings }), name])
      } else {
        await sql.run('DELETE FROM servers WHERE name = ?', [name])
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

/** The host a fact came from (events:ingest marks it), or undefined for this machine's own. */
export function hostOf(payload: unknown): string | undefined {
  const origin = (payload as { origin?: { host?: unknown } } | null)?.origin
  return typeof origin?.host === 'string' ? origin.host : undefined
}
