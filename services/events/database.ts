import { setTimeout as sleep } from 'node:timers/promises'
import { type Database, open } from 'sqlite'
import sqlite3 from 'sqlite3'
import { SerialQueue, SmError } from '../../kernel'
import type { Sql, SqlParams } from './contract'
import { isBusy, toDatabaseError } from './sql-error'

export interface DatabaseOptions {
  readonly path: string
  /** How long a write may wait for another process's lock before it fails (ms). */
  readonly busyBudgetMs?: number
}

/**
 * The one SQLite connection of a process: WAL, synchronous=FULL (a returned commit survives a
 * crash or power loss), a busy timeout, and every statement serialised through a queue.
 * Write transactions take the lock up front (BEGIN IMMEDIATE) and retry while another process
 * holds it, so callers never see SQLITE_BUSY; they get SM_ERR_DB_BUSY after the budget.
 */
export class SqliteDatabase {
  readonly path: string
  readonly #db: Database
  readonly #queue = new SerialQueue()
  readonly #busyBudgetMs: number
  readonly #sql: Sql
  readonly #prepared = new Map<string, Promise<sqlite3.Statement>>()

  private constructor(db: Database, options: DatabaseOptions) {
    this.#db = db
    this.path = options.path
    this.#busyBudgetMs = options.busyBudgetMs ?? 30_000
    this.#sql = {
      run: async (sql, params) => {
        const result = await db.run(sql, params ?? [])
        return { changes: result.changes ?? 0, lastId: result.lastID ?? 0 }
      },
      runPrepared: async (sql, params) => {
        const statement = await this.#statement(sql)
        return new Promise((resolve, reject) => {
          statement.run(params, function (this: sqlite3.RunResult, error: Error | null) {
            if (error) reject(error)
            else resolve({ changes: this.changes, lastId: this.lastID })
          })
        })
      },
      all: (sql, params) => db.all(sql, params ?? []),
      get: (sql, params) => db.get(sql, params ?? []),
      exec: (sql) => db.exec(sql),
    }
  }

  static async open(options: DatabaseOptions): Promise<SqliteDatabase> {
    let db: Database | undefined
    try {
      db = await open({ filename: options.path, driver: sqlite3.Database })
      const database = new SqliteDatabase(db, options)
      await database.#retryBusy(async () => {
        // The first statement reads the header: a file that is not SQLite fails here, before
        // anything is written next to it.
        await db?.get('PRAGMA schema_version')
        await db?.exec('PRAGMA busy_timeout = 5000')
        await db?.get('PRAGMA journal_mode = WAL')
        await db?.exec('PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON')
      })
      return database
    } catch (error) {
      await db?.close().catch(() => undefined)
      throw toDatabaseError(error, options.path)
    }
  }

  /**
   * Runs `fn` inside one write transaction; a throw rolls everything back. With `dryRun` the
   * transaction is always rolled back (to compare a replay with the live state, say).
   */
  transaction<T>(fn: (sql: Sql) => Promise<T>, options?: { dryRun?: boolean }): Promise<T> {
    return this.#queue.run(async () => {
      try {
        await this.#retryBusy(() => this.#db.exec('BEGIN IMMEDIATE'))
      } catch (error) {
        throw toDatabaseError(error, this.path)
      }
      try {
        const result = await fn(this.#sql)
        await this.#retryBusy(() => this.#db.exec(options?.dryRun ? 'ROLLBACK' : 'COMMIT'))
        return result
      } catch (error) {
        await this.#db.exec('ROLLBACK').catch(() => undefined)
        throw toDatabaseError(error, this.path)
      }
    })
  }

  /**
   * Runs one writing statement on its own (SQLite's implicit transaction: atomic and, with
   * synchronous=FULL, durable when it resolves). One round trip instead of three, for an append
   * that no projection follows.
   */
  statement<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.read(fn)
  }

  /** Runs read statements outside a transaction (they see only committed data). */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      try {
        return await this.#retryBusy(() => fn(this.#sql))
      } catch (error) {
        throw toDatabaseError(error, this.path)
      }
    })
  }

  async close(): Promise<void> {
    await this.#queue.run(async () => {
      const statements = await Promise.allSettled(this.#prepared.values())
      this.#prepared.clear()
      for (const s of statements)
        if (s.status === 'fulfilled') await new Promise<void>((resolve) => s.value.finalize(() => resolve()))
      await this.#db.close()
    })
  }

  /** The connection's prepared statement for `sql` (prepared on first use; a failed prepare is not kept). */
  #statement(sql: string): Promise<sqlite3.Statement> {
    let statement = this.#prepared.get(sql)
    if (!statement) {
      const raw = this.#db.getDatabaseInstance() as sqlite3.Database
      statement = new Promise<sqlite3.Statement>((resolve, reject) => {
        const prepared: sqlite3.Statement = raw.prepare(sql, (error: Error | null) =>
          error ? reject(error) : resolve(prepared),
        )
      })
      statement.catch(() => this.#prepared.delete(sql))
      this.#prepared.set(sql, statement)
    }
    return statement
  }

  async #retryBusy<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#busyBudgetMs
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn()
      } catch (error) {
        if (!isBusy(error)) throw error
        if (Date.now() >= deadline) throw new SmError('SM_ERR_DB_BUSY', { path: this.path, ms: this.#busyBudgetMs })
        await sleep(Math.min(5 * 2 ** attempt, 100) * (0.5 + Math.random()))
      }
    }
  }
}

export type { Sql, SqlParams }
