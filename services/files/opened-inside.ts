import { constants } from 'node:fs'
import { type FileHandle, open, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { SmError } from '../../kernel'
import type { ServerDir } from './contained-path'
import { fsError } from './fs-error'

/**
 * Opens `real` and checks that what was opened is inside the server directory, by the path
 * the kernel gives the open descriptor (`/proc/self/fd/<n>`): a link swapped in between the
 * check of the path and the open is caught here, not followed. Where there is no /proc the
 * path check alone stands. `O_NOFOLLOW`: `real` has no link left in it, its last name least.
 * An open the system refuses is a coded error (fsError), whoever opens.
 */
export async function openInside(
  dir: ServerDir,
  real: string,
  path: string,
  flags: number,
): Promise<{ handle: FileHandle; at: string }> {
  let handle: FileHandle
  try {
    handle = await open(real, flags | constants.O_NOFOLLOW)
  } catch (error) {
    throw fsError(error, { server: dir.server, path, action: 'opened' })
  }
  const at = `/proc/self/fd/${handle.fd}`
  let opened: string
  try {
    opened = await readlink(at)
  } catch {
    return { handle, at: real }
  }
  if (!dir.inside(opened)) {
    await handle.close()
    throw new SmError('SM_ERR_FILE_OUTSIDE', { server: dir.server, path })
  }
  return { handle, at }
}

/**
 * Runs `work` with a folder of the server directory opened and checked (openInside), given a
 * way to name entries in it that goes through the open descriptor (`/proc/self/fd/<n>/<name>`):
 * what it creates, renames or deletes is in that folder, whatever was swapped into its path since.
 */
export async function inFolder<T>(
  dir: ServerDir,
  folder: string,
  path: string,
  work: (at: (name: string) => string) => Promise<T>,
): Promise<T> {
  const { handle, at } = await openInside(dir, folder, path, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    return await work((name) => join(at, name))
  } finally {
    await handle.close()
  }
}
