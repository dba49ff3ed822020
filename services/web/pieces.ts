import { Readable } from 'node:stream'
import { PIECE_BYTES } from '../../lib/pieces'

type ReadPiece = (offset: number, length: number) => Promise<{ data: string; eof: boolean }>

/**
 * A file on another host, as a stream read piece by piece over the bus (files:read_bytes,
 * servers:backup_bytes). The first piece is read before the stream is handed out, so what
 * refuses the read at once (a file replaced, a host gone) is a coded error answer, not a cut download.
 */
export async function pieceStream(read: ReadPiece): Promise<Readable> {
  let next = await read(0, PIECE_BYTES)
  let offset = 0
  return new Readable({
    // The next piece is asked for before this one is pushed: a push lets the stream call read
    // again, which must find the piece after it.
    async read() {
      try {
        const bytes = Buffer.from(next.data, 'base64')
        offset += bytes.length
        const last = next.eof || bytes.length === 0
        if (!last) next = await read(offset, PIECE_BYTES)
        if (bytes.length > 0) this.push(bytes)
        if (last) this.push(null)
      } catch (error) {
        this.destroy(error as Error)
      }
    },
  })
}
