import { Readable } from 'node:stream'
import { PIECE_BYTES } from '../../lib/pieces'

type ReadPiece = (offset: number, length: number) => Promise<{ data: string; eof: boolean }>

/**
 * A file on another host, as a stream read piece by piece over the bus (files:read_bytes,
 * servers:backup_bytes), `size` bytes of it (what was located and announced: a file that grows
 * meanwhile, a game's log, is not sent past it). The first piece is read before the stream is
 * handed out, so what refuses the read at once (a file replaced, a host gone) is a coded error
 * answer, not a cut download.
 */
export async function pieceStream(read: ReadPiece, size: number): Promise<Readable> {
  if (size === 0) return Readable.from([])
  let offset = 0
  const ask = () => read(offset, Math.min(PIECE_BYTES, size - offset))
  let next = await ask()
  return new Readable({
    // The next piece is asked for before this one is pushed: a push lets the stream call read
    // again, which must find the piece after it.
    async read() {
      try {
        const bytes = Buffer.from(next.data, 'base64').subarray(0, size - offset)
        offset += bytes.length
        const last = next.eof || bytes.length === 0 || offset >= size
        if (!last) next = await ask()
        if (bytes.length > 0) this.push(bytes)
        if (last) this.push(null)
      } catch (error) {
        this.destroy(error as Error)
      }
    },
  })
}
