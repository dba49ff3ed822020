import { copyFileSync, existsSync, renameSync, rmSync, truncateSync } from 'node:fs'
import { reasonOf } from '../../../kernel/errors'
import type { RunFiles, RunSpec } from './run-files'

const LOG_CHECK_MS = 10_000

/**
 * A run's console log kept to its size (`servers.log_max_bytes`, `retention.logs` rotated copies):
 * checked now and then, and before each launch. A log that cannot be rotated (a full disk) is
 * appended to and tried again at the next check: a game is never kept down for it.
 */
export class LogRotation {
  readonly #files: RunFiles
  readonly #limits: RunSpec['log']
  /** Reads what the log holds before it is copied: its lines reach the followers first. */
  readonly #flush: () => void
  readonly #log: (message: string) => void
  #check: NodeJS.Timeout | undefined

  constructor(files: RunFiles, limits: RunSpec['log'], flush: () => void, log: (message: string) => void) {
    this.#files = files
    this.#limits = limits
    this.#flush = flush
    this.#log = log
  }

  /** Checks the log from now on. */
  start(): void {
    this.#check ??= setInterval(() => this.rotate(), LOG_CHECK_MS)
  }

  stop(): void {
    if (this.#check) clearInterval(this.#check)
  }

  /** Rotates the log if it is due, or says why not: the next check tries again. */
  rotate(): void {
    try {
      this.#rotate()
    } catch (error) {
      this.#log(`the console log could not be rotated (tried again later): ${reasonOf(error)}`)
    }
  }

  /** Copy-and-truncate rotation (the game holds the log open O_APPEND, so renaming it would lose lines). */
  #rotate(): void {
    const { maxBytes, keep } = this.#limits
    const log = this.#files.log
    if (this.#files.logSize() <= maxBytes) return
    this.#flush()
    for (let n = keep - 1; n >= 1; n--) if (existsSync(`${log}.${n}`)) renameSync(`${log}.${n}`, `${log}.${n + 1}`)
    if (keep >= 1)
      try {
        copyFileSync(log, `${log}.1`)
      } catch (error) {
        // A torn copy is no rotated log; the log itself is still whole (not truncated).
        rmSync(`${log}.1`, { force: true })
        throw error
      }
    truncateSync(log, 0)
  }
}
