import { createHash, randomBytes } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { chmod, type FileHandle, open, rename, rm } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { isSmError, SmError } from '../../kernel'
import { kindOf, type ServerDir } from './contained-path'
import { inFolder, openInside } from './opened-inside'

/** A file's bytes, read through a checked descriptor, with its hash; undefined when it is gone. */
export interface FileBytes {
  readonly bytes: Buffer
  readonly hash: string
  readonly mtime: Date
  readonly mode: number
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

/**
 * The bytes of the regular file at `real` (at most `maxBytes`: a larger one is
 * SM_ERR_FILE_NOT_TEXT), read through a descriptor checked inside the server directory;
 * undefined when nothing is there. Opened non-blocking, so a named pipe is refused, not waited on.
 */
export async function readBytes(
  dir: ServerDir,
  real: string,
  path: string,
  maxBytes: number,
): Promise<FileBytes | undefined> {
  let handle: FileHandle
  try {
    ;({ handle } = await openInside(dir, real, path, constants.O_RDONLY | constants.O_NONBLOCK))
  } catch (error) {
    if (isSmError(error) && error.code === 'SM_ERR_FILE_NOT_FOUND') return undefined
    throw error
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile())
      throw new SmError('SM_ERR_FILE_WRONG_TYPE', { path, expected: 'a file', actual: kindOf(stats) })
    if (stats.size > maxBytes) throw tooLarge(path, stats.size, maxBytes)
    // Read to its end, not to its stat's size: a file that grew since is caught past the limit too.
    const chunks: Buffer[] = []
    let length = 0
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024)
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, length)
      if (bytesRead === 0) break
      chunks.push(chunk.subarray(0, bytesRead))
      length += bytesRead
      if (length > maxBytes) throw tooLarge(path, length, maxBytes)
    }
    const bytes = Buffer.concat(chunks, length)
    return { bytes, hash: sha256(bytes), mtime: stats.mtime, mode: stats.mode }
  } finally {
    await handle.close()
  }
}

/** The text of a file's bytes, or SM_ERR_FILE_NOT_TEXT when they are not UTF-8 text (a NUL, a byte sequence that is not UTF-8). */
export function asText(path: string, bytes: Buffer): string {
  const binary = () => new SmError('SM_ERR_FILE_NOT_TEXT', { path, reason: 'it holds binary data, not UTF-8 text' })
  if (bytes.includes(0)) throw binary()
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw binary()
  }
}

function tooLarge(path: string, size: number, max: number): SmError {
  return new SmError('SM_ERR_FILE_NOT_TEXT', {
    path,
    reason: `it is ${kib(size)} KiB, more than files.max_text_kb (${kib(max)} KiB) allows`,
  })
}

const kib = (bytes: number) => Math.ceil(bytes / 1024)

/**
 * Replaces (or creates) the file at `real` atomically: `fill` writes a temporary file in the same
 * folder (created exclusively, never through a link), which is synced, given `mode` (the old
 * file's, so a save keeps it) and renamed over it. A crash leaves the old file or the new one,
 * never half of one; a failure removes the temporary file. The folder is opened and checked
 * first (inFolder), so both names are in the folder that was checked. Resolves with the file
 * written, as its descriptor says (device, inode, time).
 */
export async function replaceFile(
  dir: ServerDir,
  real: string,
  path: string,
  mode: number | undefined,
  fill: (temp: string) => Promise<void>,
): Promise<Stats> {
  return inFolder(dir, dirname(real), path, async (at) => {
    const temp = at(`.sm-${process.pid}-${randomBytes(6).toString('hex')}.part`)
    try {
      await fill(temp)
      if (mode !== undefined) await chmod(temp, mode & 0o7777)
      const handle = await open(temp, constants.O_RDONLY | constants.O_NOFOLLOW)
      // Its identity and time from the descriptor: the path may lead elsewhere by the time it is answered.
      const written = await handle
        .sync()
        .then(() => handle.stat())
        .finally(() => handle.close())
      await rename(temp, at(basename(real)))
      return written
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
  })
}
