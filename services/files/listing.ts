import { constants } from 'node:fs'
import { lstat, readdir, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { SmError } from '../../kernel'
import { type ServerDir, type Target, typeOf } from './contained-path'
import type { FileEntry, FileListing } from './contract'
import { fsError } from './fs-error'
import { openInside } from './opened-inside'

/** The most entries one listing holds: a folder of a million files must not become a reply of a million rows. */
const MAX_ENTRIES = 5000

/** A folder's entries: folders (and links to folders) first, then the rest, each by name; links not followed out. */
export async function listFolder(dir: ServerDir, target: Target): Promise<FileListing> {
  if (!target.stats) throw new SmError('SM_ERR_FILE_NOT_FOUND', { server: dir.server, path: target.path || '.' })
  if (!target.stats.isDirectory())
    throw new SmError('SM_ERR_FILE_WRONG_TYPE', { path: target.path, expected: 'a folder', actual: 'a file' })
  // Read through the opened folder: what is listed is the folder that was checked.
  const { handle, at } = await openInside(dir, target.real, target.path, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    const names = (await readdir(at)).sort(byName)
    const shown = names.slice(0, MAX_ENTRIES)
    const entries = await Promise.all(shown.map((name) => describe(dir, at, target.real, name)))
    const known = entries.filter((e): e is FileEntry => e !== undefined)
    return { path: target.path, entries: known.sort(foldersFirst), truncated: names.length > shown.length }
  } catch (error) {
    throw fsError(error, { server: dir.server, path: target.path, action: 'listed' })
  } finally {
    await handle.close()
  }
}

async function describe(dir: ServerDir, at: string, real: string, name: string): Promise<FileEntry | undefined> {
  const own = await lstat(join(at, name)).catch(() => undefined)
  // Gone between the listing and its look: not listed.
  if (!own) return undefined
  const entry = { name, size: own.size, mtime: own.mtime.toISOString(), type: typeOf(own) }
  return entry.type === 'link' ? { ...entry, link: await leadsTo(dir, join(real, name)) } : entry
}

/** Where a link leads, without following one out of the server directory. */
async function leadsTo(dir: ServerDir, link: string): Promise<FileEntry['link']> {
  const target = await realpath(link).catch(() => undefined)
  if (target === undefined) return 'missing'
  if (!dir.inside(target)) return 'outside'
  const stats = await stat(target).catch(() => undefined)
  if (!stats) return 'missing'
  return stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other'
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function foldersFirst(a: FileEntry, b: FileEntry): number {
  const folder = (e: FileEntry) => (e.type === 'directory' || e.link === 'directory' ? 0 : 1)
  return folder(a) - folder(b) || byName(a.name, b.name)
}
