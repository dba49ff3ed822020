import type { WireError } from '../../kernel/errors'

/**
 * The bus bridge's messages: one JSON object per line. A client sends requests (answered by
 * the one handler of the command on the manager's bus) and subscriptions (events forwarded as
 * they are emitted); the same shapes can later ride a real broker between hosts.
 */
export type ClientMessage =
  | {
      readonly t: 'req'
      readonly id: number
      readonly command: string
      readonly payload: unknown
      readonly actor: string
    }
  | { readonly t: 'sub'; readonly id: number; readonly event: string }
  | { readonly t: 'unsub'; readonly id: number }

export type ServerMessage =
  | { readonly t: 'res'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'res'; readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly t: 'evt'; readonly sub: number; readonly payload: unknown; readonly meta: EventFrameMeta }

export interface EventFrameMeta {
  readonly event: string
  readonly actor: string
  readonly seq: number | undefined
}

/**
 * One end of a bridge link, all the bridge's request and subscription logic needs of a
 * transport. Today `Connection` (JSON lines over a UNIX socket) is the only one; a broker's
 * channel between hosts would be another.
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
