import type { Socket } from 'node:net'
import { LineDecoder, type Link } from './protocol'

/**
 * One end of a bridge connection: JSON lines over a stream socket. Messages that are not JSON
 * objects, or too large, end the connection (the peer is told why when it can be).
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
