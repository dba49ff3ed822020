import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

export interface FileSinkOptions {
  readonly path: string
  /** Rotate when the file is larger than this at open (bytes). */
  readonly maxBytes?: number
  /** How many rotated files to keep (`.1` is the newest). */
  readonly keep?: number
}

/**
 * Appends lines to a log file with synchronous writes, so the last line before a crash is on
 * disk. The file is opened on the first line (first use), rotated by size at open, and a
 * failure to open disables the sink instead of breaking the caller.
 */
export class FileSink {
  readonly #options: Required<FileSinkOptions>
  #fd: number | undefined
  #broken: string | undefined

  constructor(options: FileSinkOptions) {
    this.#options = { maxBytes: 10 * 1024 * 1024, keep: 3, ...options }
  }

  /** Why the sink is disabled, if it is. */
  get broken(): string | undefined {
    return this.#broken
  }

  write(line: string): void {
    if (this.#broken) return
    try {
      this.#fd ??= this.#open()
      writeSync(this.#fd, `${line}\n`)
    } catch (error) {
      this.#broken = (error as Error).message
      this.close()
    }
  }

  close(): void {
    if (this.#fd === undefined) return
    closeSync(this.#fd)
    this.#fd = undefined
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
