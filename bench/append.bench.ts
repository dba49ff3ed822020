import { join } from 'node:path'
import sqlite3 from 'sqlite3'
import { createManager, silentLogger } from '../manager'
import { SCHEMA } from '../services/events/schema'
import { type Comparison, compare } from './harness'

const BATCH = 1_000

const payload = (i: number) => ({ key: `custom.k${i % 100}`, value: i, previous: i - 1, result: { status: 'success' } })

/**
 * Batched appends through the events service (validation, JSON, multi-row insert, projections
 * consulted, all in one transaction per batch) against a bare sqlite3 prepared-statement insert
 * loop into the same table, same indexes and same pragmas, one transaction per batch.
 */
export async function appendBench(dir: string, quick = false): Promise<Comparison> {
  const manager = createManager({ dataDir: join(dir, 'ours'), logger: silentLogger })
  await manager.start()
  const bare = await openBare(join(dir, 'bare.db'))
  try {
    let ourSeq = 0
    let bareSeq = 0
    return await compare(
      `append in batches of ${BATCH}`,
      {
        baseline: [
          'bare sqlite3 insert loop',
          {
            run: async (n) => {
              for (let done = 0; done < n; done += BATCH) await bare.batch(BATCH, () => payload(bareSeq++))
            },
          },
        ],
        candidate: [
          'events:append',
          {
            run: async (n) => {
              for (let done = 0; done < n; done += BATCH) {
                const events = Array.from({ length: BATCH }, () => ({
                  type: 'bench_event',
                  actor: 'core',
                  payload: payload(ourSeq++),
                }))
                await manager.bus.request('events:append', { events })
              }
            },
          },
        ],
      },
      { perRound: 10 * BATCH, rounds: 7, quick },
    )
  } finally {
    await manager.stop()
    await bare.close()
  }
}

async function openBare(path: string) {
  const db = new sqlite3.Database(path)
  const exec = (sql: string) =>
    new Promise<void>((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())))
  await exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL')
  for (const statement of SCHEMA) await exec(statement)
  const insert = db.prepare('INSERT INTO events (time, type, actor, payload) VALUES (?, ?, ?, ?)')
  return {
    batch: async (n: number, next: () => unknown) => {
      await exec('BEGIN IMMEDIATE')
      const time = Date.now()
      for (let i = 0; i < n; i++) insert.run(time, 'bench_event', 'core', JSON.stringify(next()))
      await exec('COMMIT')
    },
    close: () => new Promise<void>((resolve) => insert.finalize(() => db.close(() => resolve()))),
  }
}
