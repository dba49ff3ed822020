import { connect, type Socket } from 'node:net'

/**
 * JSON lines over a stream socket: one JSON object per line, both ways. The manager's socket (the
 * bus bridge) and each server's supervisor socket speak it.
 */

/**
 * One end of a JSON-lines connection. Messages that are not JSON objects, or too large, end the
 * connection (the peer is told why when it can be).
 */
export class Connection<In, Out> implements Link<Out> {
  readonly #socket: Socket
  readonly #decoder = new LineDecoder()
  #closed = false

  constructor(socket: Socket, onMessage: (message: In) => void, onClose: (reason: string | undefined) => void) {
    this.#socket = socket
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      let lines: string[]
      try {
        lines = this.#decoder.push(chunk)
      } catch (error) {
        return this.close((error as Error).message)
      }
      for (const line of lines) {
        let message: unknown
        try {
          message = JSON.parse(line)
        } catch {
          return this.close('a message is not JSON')
        }
        if (message === null || typeof message !== 'object') return this.close('a message is not a JSON object')
        onMessage(message as In)
      }
    })
    socket.on('error', () => {}) // 'close' follows and says it
    socket.on('close', () => {
      this.#closed = true
      onClose(this.#reason)
    })
  }

  #reason: string | undefined

  get closed(): boolean {
    return this.#closed
  }

  send(message: Out): void {
    if (!this.#closed) this.#socket.write(`${JSON.stringify(message)}\n`)
  }

  close(reason?: string): void {
    this.#reason ??= reason
    this.#socket.end()
  }

  /** Ends the connection now, pending writes or not. */
  destroy(): void {
    this.#socket.destroy()
  }
}

/**
 * One end of a link that carries messages, all the request and subscription logic of the bus
 * bridge needs of a transport. Today `Connection` (JSON lines over a UNIX socket) is the only
 * one; a broker's channel between hosts would be another.
 */
export interface Link<Out> {
  send(message: Out): void
  /** Ends the link after what was sent; `reason` is what this side's close handler is told. */
  close(reason?: string): void
  /** Ends it now. */
  destroy(): void
  readonly closed: boolean
}

/** The largest line either side accepts (a reply with 10 000 events fits many times over). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024

/** Splits a byte stream into lines, refusing one longer than the limit. */
export class LineDecoder {
  #buffer = ''

  /** The complete lines in `chunk` (and what was buffered before it). */
  push(chunk: string): string[] {
    this.#buffer += chunk
    const end = this.#buffer.lastIndexOf('\n')
    if (end < 0) {
      if (Buffer.byteLength(this.#buffer) > MAX_LINE_BYTES) throw new Error('a message is larger than 64 MiB')
      return []
    }
    const lines = this.#buffer.slice(0, end).split('\n')
    this.#buffer = this.#buffer.slice(end + 1)
    return lines.filter((line) => line !== '')
  }
}

/** A connected socket, or the error code that stopped the connection (`ENOENT`, `ECONNREFUSED`, ...). */
export function connectOrCode(path: string): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = connect(path)
    socket.once('connect', () => {
      socket.removeAllListeners('error')
      resolve(socket)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
}
