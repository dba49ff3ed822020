import { join } from 'node:path'
import { open } from 'sqlite'
import sqlite3 from 'sqlite3'
import { createManager, silentLogger } from '../manager'
import { databasePath } from '../services/events'

export interface ReplayResult {
  /** The setting changes appended. */
  readonly events: number
  /** Every event in the log, the manager's own start-up facts included: what the rebuild replays. */
  readonly logged: number
  readonly appendPerSecond: number
  readonly replayPerSecond: number
  /** A bare read of the same rows with JSON.parse: the floor of any replay. */
  readonly scanPerSecond: number
}

/**
 * Fills a log with `count` setting changes (1 000 distinct keys) and rebuilds the settings
 * projection from it, reporting events per second next to a bare scan of the same rows.
 */
export async function replayBench(dir: string, count = 1_000_000): Promise<ReplayResult> {
  const dataDir = join(dir, 'replay')
  const manager = createManager({ dataDir, logger: silentLogger })
  await manager.start()
  try {
    const batch = 10_000
    const appendStart = performance.now()
    for (let done = 0; done < count; done += batch) {
      const events = Array.from({ length: Math.min(batch, count - done) }, (_, i) => ({
        type: 'after_setting_update',
        actor: 'core',
        payload: { key: `custom.k${(done + i) % 1_000}`, value: done + i, result: { status: 'success' } },
      }))
      await manager.bus.request('events:append', { events })
    }
    const appendSeconds = (performance.now() - appendStart) / 1_000

    const scanStart = performance.now()
    const db = await open({ filename: databasePath(dataDir), driver: sqlite3.Database })
    // The manager records facts of its own (its start, the default settings), so the log holds
    // more than the appended changes: the rebuild and the scan must each see every row of it.
    const logged = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM events'))?.n ?? 0
    let scanned = 0
    for (let after = 0; ; ) {
      const rows = await db.all<{ seq: number; payload: string }[]>(
        'SELECT seq, payload FROM events WHERE seq > ? ORDER BY seq LIMIT 5000',
        [after],
      )
      if (rows.length === 0) break
      for (const row of rows) JSON.parse(row.payload)
      scanned += rows.length
      after = rows[rows.length - 1]?.seq ?? after
    }
    await db.close()
    const scanSeconds = (performance.now() - scanStart) / 1_000

    const rebuilt = await manager.bus.request('events:rebuild', {})
    if (logged < count || rebuilt.replayed !== logged || scanned !== logged)
      throw new Error(
        `replayed ${rebuilt.replayed}, scanned ${scanned}, expected ${logged} (${count} appended, the rest the manager's own)`,
      )
    const check = await manager.bus.request('settings:get', { key: `custom.k${(count - 1) % 1_000}` })
    if (check.value !== count - 1) throw new Error('the rebuilt state is wrong')
    return {
      events: count,
      logged,
      appendPerSecond: count / appendSeconds,
      replayPerSecond: logged / (rebuilt.ms / 1_000),
      scanPerSecond: logged / scanSeconds,
    }
  } finally {
    await manager.stop()
  }
}
