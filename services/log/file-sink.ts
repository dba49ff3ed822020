import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { writeAll } from './guarded-output'

export interface FileSinkOptions {
  readonly path: string
  /** Rotate when the file is larger than this at open (bytes). */
  readonly maxBytes?: number
  /** How many rotated files to keep (`.1` is the newest). */
  readonly keep?: number
  /** Told once when lines start being dropped (the file cannot be opened or written). */
  readonly onDropping?: (reason: string) => void
  /** Told once writing works again, with how many lines were dropped meanwhile. */
  readonly onResumed?: (dropped: number, reason: string) => void
}

/**
 * pino's destination for the log file: appends lines with synchronous writes, so the last line
 * before a crash is on disk. The file is opened on the first line (first use) and rotated by size
 * at open. A line that cannot be written (a full disk, a directory gone) is dropped instead of
 * breaking the caller; every later line tries again, so logging resumes by itself once the cause
 * is gone. (pino's own destination, sonic-boom, keeps a chunk that failed and retries it with
 * every line, never opens again a file it could not open, and has no rotation.)
 */
export class FileSink {
  readonly #options: FileSinkOptions & Required<Pick<FileSinkOptions, 'maxBytes' | 'keep'>>
  #fd: number | undefined
  #failing: { reason: string; dropped: number } | undefined

  constructor(options: FileSinkOptions) {
    this.#options = { maxBytes: 10 * 1024 * 1024, keep: 3, ...options }
  }

  /** Why lines are being dropped now, if they are. */
  get broken(): string | undefined {
    return this.#failing?.reason
  }

  /** Writes `line`, which ends with its newline (as pino's lines do). */
  write(line: string): void {
    try {
      this.#fd ??= this.#open()
      writeAll(this.#fd, line)
    } catch (error) {
      this.#drop(error)
      return
    }
    const resumed = this.#failing
    if (resumed) {
      this.#failing = undefined
      this.#options.onResumed?.(resumed.dropped, resumed.reason)
    }
  }

  close(): void {
    if (this.#fd === undefined) return
    const fd = this.#fd
    this.#fd = undefined
    try {
      closeSync(fd)
    } catch {}
  }

  #drop(error: unknown): void {
    // A descriptor that failed to write stays open (an append works again once there is space);
    // one that could not be opened is opened again by the next line.
    if (this.#failing) {
      this.#failing.dropped++
      return
    }
    const reason = (error as Error)?.message ?? String(error)
    this.#failing = { reason, dropped: 1 }
    this.#options.onDropping?.(reason)
  }

  #open(): number {
    const { path, maxBytes, keep } = this.#options
    mkdirSync(dirname(path), { recursive: true })
    if (existsSync(path) && statSync(path).size > maxBytes) {
      for (let n = keep - 1; n >= 1; n--) {
        if (existsSync(`${path}.${n}`)) renameSync(`${path}.${n}`, `${path}.${n + 1}`)
      }
      renameSync(path, `${path}.1`)
    }
    return openSync(path, 'a')
  }
}
