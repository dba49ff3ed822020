import { existsSync, statfsSync } from 'node:fs'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Database, open } from 'sqlite'
import sqlite3 from 'sqlite3'
import { isDiskFull, SmError } from '../../kernel'
import { SerialQueue } from '../../lib/serial-queue'
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
  #db: Database
  readonly #queue = new SerialQueue()
  readonly #busyBudgetMs: number
  #sql: Sql
  readonly #prepared = new Map<string, Promise<sqlite3.Statement>>()
  /** Opened in exclusive locking mode because the disk was full at open (see `open`). */
  #fullAtOpen: boolean
  /** How many times the connection was opened again (#reopen): a new one counts data_version afresh. */
  #connection = 0

  private constructor(db: Database, options: DatabaseOptions, fullAtOpen = false) {
    this.#db = db
    this.path = options.path
    this.#busyBudgetMs = options.busyBudgetMs ?? 30_000
    this.#fullAtOpen = fullAtOpen
    this.#sql = this.#sqlOf(db)
  }

  #sqlOf(db: Database): Sql {
    return {
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

  /**
   * Opens the database. On a full disk SQLite cannot create the shared-memory file a WAL
   * database needs even to be read (an I/O error at the first statement); it is then opened in
   * exclusive locking mode, which keeps that index in memory: everything can be read (the WAL
   * included), a write that needs space fails with SM_ERR_DB_FULL, and other processes wait for
   * this one. Once the disk has space again, the next use reopens it normally (no restart).
   */
  static async open(options: DatabaseOptions): Promise<SqliteDatabase> {
    try {
      return new SqliteDatabase(await SqliteDatabase.#connect(options, false), options)
    } catch (error) {
      if (!(isDiskFull(error) || diskFullNow(options.path)) || !existsSync(options.path)) throw error
      return new SqliteDatabase(await SqliteDatabase.#connect(options, true), options, true)
    }
  }

  static async #connect(options: DatabaseOptions, exclusive: boolean): Promise<Database> {
    let db: Database | undefined
    try {
      db = await open({ filename: options.path, driver: sqlite3.Database })
      const opened = db
      await retryBusy(options.path, options.busyBudgetMs ?? 30_000, async () => {
        // Before the first read: only then does WAL mode do without the shared-memory file.
        if (exclusive) await opened.exec('PRAGMA locking_mode = EXCLUSIVE')
        // The first statement reads the header: a file that is not SQLite fails here, before
        // anything is written next to it.
        await opened.get('PRAGMA schema_version')
        await opened.exec('PRAGMA busy_timeout = 5000')
        await opened.get('PRAGMA journal_mode = WAL')
        await opened.exec('PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON')
      })
      return opened
    } catch (error) {
      await db?.close().catch(() => undefined)
      throw toDatabaseError(error, options.path)
    }
  }

  /** Opened exclusively on a full disk and there is space again: back to the normal, shared mode (inside the queue). */
  async #reopen(): Promise<void> {
    if (!this.#fullAtOpen || diskFullNow(this.path)) return
    const options = { path: this.path, busyBudgetMs: this.#busyBudgetMs }
    // Ours is the exclusive lock the normal open would wait for: let it go first.
    await this.#finalizeStatements()
    await this.#db.close().catch(() => undefined)
    let db: Database
    try {
      db = await SqliteDatabase.#connect(options, false)
      this.#fullAtOpen = false
    } catch {
      db = await SqliteDatabase.#connect(options, true)
    }
    this.#db = db
    this.#sql = this.#sqlOf(db)
    this.#connection++
  }

  /**
   * Runs `fn` inside one write transaction; a throw rolls everything back. With `dryRun` the
   * transaction is always rolled back (to compare a replay with the live state, say).
   */
  transaction<T>(fn: (sql: Sql) => Promise<T>, options?: { dryRun?: boolean }): Promise<T> {
    return this.#queue.run(async () => {
      await this.#reopen()
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

  /**
   * As read(), with what stands for the commits of every other connection so far (SQLite's
   * `data_version`, and which connection this is): it differs once another process has committed
   * or this one was reopened. This connection's own commits leave it as it was.
   */
  readVersioned<T>(fn: (sql: Sql, version: string) => Promise<T>): Promise<T> {
    return this.read(async (sql) => fn(sql, await this.version(sql)))
  }

  /** What readVersioned gives its function, asked inside a read (`sql` is the read's). */
  async version(sql: Sql): Promise<string> {
    const row = await sql.get<{ data_version: number }>('PRAGMA data_version')
    return `${this.#connection}:${row?.data_version}`
  }

  /** Runs read statements outside a transaction (they see only committed data). */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      await this.#reopen()
      try {
        return await this.#retryBusy(() => fn(this.#sql))
      } catch (error) {
        throw toDatabaseError(error, this.path)
      }
    })
  }

  async close(): Promise<void> {
    await this.#queue.run(async () => {
      await this.#finalizeStatements()
      await this.#db.close()
    })
  }

  async #finalizeStatements(): Promise<void> {
    const statements = await Promise.allSettled(this.#prepared.values())
    this.#prepared.clear()
    for (const s of statements)
      if (s.status === 'fulfilled') await new Promise<void>((resolve) => s.value.finalize(() => resolve()))
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

  #retryBusy<T>(fn: () => Promise<T>): Promise<T> {
    return retryBusy(this.path, this.#busyBudgetMs, fn)
  }
}

async function retryBusy<T>(path: string, budgetMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + budgetMs
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      if (!isBusy(error)) throw error
      if (Date.now() >= deadline) throw new SmError('SM_ERR_DB_BUSY', { path, ms: budgetMs })
      await sleep(Math.min(5 * 2 ** attempt, 100) * (0.5 + Math.random()))
    }
  }
}

/** Whether the disk holding `path` has no space left (SQLite reports a full disk at open as an I/O error). */
function diskFullNow(path: string): boolean {
  try {
    return statfsSync(dirname(path)).bavail === 0
  } catch {
    return false
  }
}

export type { Sql, SqlParams }
