import { existsSync, statfsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { SmError } from '../../../kernel'
import { megabytes, tooLarge } from './archive'

/** The setting that caps what one archive may unpack to (an install, an update, a restore, an import). */
export const MAX_UNPACKED_SETTING = 'servers.max_unpacked_mb'

/** The cap in bytes, from the setting's value in MB. */
export function unpackLimit(mb: unknown): number {
  const value = Number(mb)
  return Number.isFinite(value) && value > 0 ? value * 1024 * 1024 : Number.POSITIVE_INFINITY
}

/**
 * Refuses, before anything is written, what would unpack (or be copied) into `into` to more than
 * the cap (`maxBytes`: SM_ERR_ARCHIVE_TOO_LARGE) or than its disk has free
 * (SM_ERR_ARCHIVE_NO_SPACE). `bytes` is what the archive declares: the extraction counts again
 * as it writes, since a zip's declared sizes are only its word.
 */
export function checkRoom(file: string, bytes: number, into: string, maxBytes: number): void {
  if (bytes > maxBytes) throw tooLarge(file, `${megabytes(bytes)} MB`, maxBytes)
  const free = freeBytes(into)
  if (free !== undefined && bytes > free)
    throw new SmError('SM_ERR_ARCHIVE_NO_SPACE', {
      file,
      sizeMb: megabytes(bytes),
      freeMb: Math.floor(free / (1024 * 1024)),
      dir: resolve(into),
    })
}

/** The bytes free to this user on the disk that holds `path` (or its nearest folder that exists); undefined if unknown. */
function freeBytes(path: string): number | undefined {
  let at = resolve(path)
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at)
  try {
    const disk = statfsSync(at)
    return disk.bavail * disk.bsize
  } catch {
    return undefined
  }
}
