import { crc32 } from 'node:zlib'

/**
 * yazl checksums every byte with buffer-crc32, a table-driven JavaScript CRC on the main thread
 * (about 430 MB/s here); Node's zlib.crc32 (native, since Node 20.15) is about 4.5x faster, and
 * gives the same values (the same polynomial; `previous` continues a running CRC). This swaps it
 * in: the module object is the one yazl calls through at each entry, so any time before the first
 * archive is made will do (archive.ts calls it as it loads).
 */
export function useNativeCrc32(): void {
  const bufferCrc32 = require('buffer-crc32') as { unsigned(buffer: Buffer, previous?: number): number }
  bufferCrc32.unsigned = (buffer, previous) => crc32(buffer, previous ?? 0)
}
