import type { FileHandle } from 'node:fs/promises'

/**
 * The most bytes of a file one bus message carries (files:read_bytes, files:stage,
 * servers:backup_bytes): base64 in JSON, well under a NATS message's default 1 MB.
 */
export const PIECE_BYTES = 256 * 1024

/** Up to `length` bytes of an open file from `offset`, base64, and whether they reach its end (`size`). */
export async function readPiece(
  handle: FileHandle,
  offset: number,
  length: number,
  size: number,
): Promise<{ data: string; eof: boolean }> {
  const buffer = Buffer.alloc(length)
  const { bytesRead } = await handle.read(buffer, 0, length, offset)
  return { data: buffer.toString('base64', 0, bytesRead), eof: offset + bytesRead >= size }
}
