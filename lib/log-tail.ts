import { closeSync, type FSWatcher, fstatSync, openSync, readSync, statSync, watch } from 'node:fs'
import { cleanConsoleLine } from './console-text'

const CHUNK = 64 * 1024
/** The fallback poll, for file systems where fs.watch misses changes. */
const POLL_MS = 500
/** A line longer than this is cut (a Bedrock save query list can be tens of KB; this is far above). */
const MAX_LINE = 4 * 1024 * 1024

/**
 * Follows a console log from an offset and hands over complete lines as the game writes them.
 * The log is rotated by copy-and-truncate (the game holds it open O_APPEND), so a file shorter
 * than the offset means it was truncated: reading starts again at its beginning.
 */
export class LogTail {
  readonly #path: string
  #offset: number
  #pending = Buffer.alloc(0)
  #watcher: FSWatcher | undefined
  #timer: NodeJS.Timeout | undefined
  #reading = false
  readonly #onLine: (line: string) => void

  constructor(path: string, offset: number, onLine: (line: string) => void) {
    this.#path = path
    this.#offset = offset
    this.#onLine = onLine
  }

  /** Starts following; `ref: false` lets the process exit while it follows. */
  start(options: { ref?: boolean } = {}): this {
    this.#ref = options.ref !== false
    this.#watch()
    this.#timer = setInterval(() => {
      if (!this.#watcher) this.#watch() // the file did not exist yet, or was replaced
      this.poll()
    }, POLL_MS)
    if (!this.#ref) this.#timer.unref()
    this.poll()
    return this
  }

  #ref = true

  /** Reads as soon as the file changes (inotify); the poll is only the fallback. */
  #watch(): void {
    try {
      const watcher = watch(this.#path, () => this.poll())
      watcher.on('error', () => {
        watcher.close()
        if (this.#watcher === watcher) this.#watcher = undefined
      })
      if (!this.#ref) watcher.unref()
      this.#watcher = watcher
    } catch {
      this.#watcher = undefined
    }
  }

  /** Reads what was appended since the last read (synchronous: lines arrive in order). */
  poll(): void {
    if (this.#reading) return
    this.#reading = true
    let fd: number | undefined
    try {
      fd = openSync(this.#path, 'r')
      const size = fstatSync(fd).size
      if (size < this.#offset) {
        this.#offset = 0
        this.#pending = Buffer.alloc(0)
      }
      const buffer = Buffer.allocUnsafe(CHUNK)
      while (this.#offset < size) {
        const n = readSync(fd, buffer, 0, Math.min(CHUNK, size - this.#offset), this.#offset)
        if (n <= 0) break
        this.#offset += n
        this.#split(buffer.subarray(0, n))
      }
    } catch {
      // Not there yet (the game has not written) or gone: the next poll tries again.
    } finally {
      if (fd !== undefined) closeSync(fd)
      this.#reading = false
    }
  }

  #split(chunk: Buffer): void {
    let data = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk
    let newline = data.indexOf(10)
    while (newline >= 0) {
      const line = data.subarray(0, newline).toString('utf8').replace(/\r$/, '')
      this.#onLine(line)
      data = data.subarray(newline + 1)
      newline = data.indexOf(10)
    }
    if (data.length > MAX_LINE) {
      this.#onLine(data.toString('utf8'))
      data = Buffer.alloc(0)
    }
    this.#pending = Buffer.from(data)
  }

  get offset(): number {
    return this.#offset
  }

  stop(): void {
    this.#watcher?.close()
    this.#watcher = undefined
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = undefined
  }
}

/** The last `count` lines of a file (of its first `end` bytes), read backwards in chunks: constant memory for huge logs. */
export function lastLines(path: string, count: number, end?: number): string[] {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return []
  }
  try {
    const size = Math.min(end ?? Number.POSITIVE_INFINITY, fstatSync(fd).size)
    let position = size
    let tail = Buffer.alloc(0)
    let newlines = 0
    const buffer = Buffer.allocUnsafe(CHUNK)
    while (position > 0 && newlines <= count) {
      const length = Math.min(CHUNK, position)
      position -= length
      readSync(fd, buffer, 0, length, position)
      const piece = Buffer.from(buffer.subarray(0, length))
      for (const byte of piece) if (byte === 10) newlines++
      tail = Buffer.concat([piece, tail])
    }
    const lines = tail.toString('utf8').split('\n')
    if (lines.at(-1) === '') lines.pop()
    return count > 0 ? lines.slice(-count).map((l) => l.replace(/\r$/, '')) : []
  } finally {
    closeSync(fd)
  }
}

/**
 * The last `count` lines of a console log as plain text (`cleanConsoleLine`). A last line that
 * shows nothing, the prompt of a game waiting for input not yet ended by a newline, is not one of them.
 */
export function lastConsoleLines(path: string, count: number, end?: number): string[] {
  if (count <= 0) return []
  const raw = lastLines(path, count + 1, end)
  const clean = raw.map(cleanConsoleLine)
  if (clean.at(-1) === '' && raw.at(-1) !== '') clean.pop()
  return clean.slice(-count)
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
