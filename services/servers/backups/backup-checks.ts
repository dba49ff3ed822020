import { existsSync, mkdirSync, renameSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { reasonOf, SmError } from '../../../kernel'
import type { BackupKind, ServerRecord } from '../contract'
import { gameProfile } from '../profiles'
import { configFiles, leftOut, worldFolder } from '../world'
import { listTree, readZipEntries, UnsafeEntryError } from './archive'
import { checkRoom } from './unpack-limits'

/**
 * Checks an archive before anything changes: a readable zip, no entry escaping or a link, the
 * right content, and room for it (servers.max_unpacked_mb, and the free space where it goes).
 */
export async function checkArchive(
  server: ServerRecord,
  path: string,
  kind: BackupKind,
  maxUnpacked: number,
): Promise<void> {
  let entries: { name: string; size: number }[]
  try {
    entries = await readZipEntries(path)
  } catch (error) {
    if (error instanceof UnsafeEntryError)
      throw new SmError('SM_ERR_BACKUP_UNSAFE_ENTRY', { file: path, entry: error.entry, reason: error.reason })
    throw new SmError('SM_ERR_BACKUP_INVALID', {
      file: path,
      reason: `it cannot be read as a zip (${reasonOf(error)})`,
    })
  }
  if (entries.length === 0) throw new SmError('SM_ERR_BACKUP_INVALID', { file: path, reason: 'it is empty' })
  const into = (kind === 'world' ? worldFolder(server) : undefined) ?? server.dir
  checkRoom(
    path,
    entries.reduce((sum, entry) => sum + entry.size, 0),
    into,
    maxUnpacked,
  )
  const names = entries.map((e) => e.name.replace(/\\/g, '/'))
  const { name: game, worldMarkers: markers } = gameProfile(server)
  const marks = (n: string) => markers.some((m) => (m.endsWith('/') ? n.startsWith(m) : n === m))
  if (kind === 'world' && markers.length > 0 && !names.some(marks))
    throw new SmError('SM_ERR_BACKUP_INVALID', {
      file: path,
      reason: `it holds no ${game} world (none of ${markers.join(', ')} at its top)`,
    })
  if (kind === 'config') {
    const allowed = configFiles(server).map((name) => posix.normalize(name.replace(/\\/g, '/')))
    const stray = names.find((n) => !allowed.includes(n))
    if (stray)
      throw new SmError('SM_ERR_BACKUP_INVALID', {
        file: path,
        reason: `'${stray}' is not a config file of this server (${allowed.join(', ')})`,
      })
  }
}

/**
 * Moves what a whole-directory backup leaves out (leftOut: its logs) from the directory being
 * replaced into its replacement, where the replacement has no such entry of its own.
 */
export function carryOver(from: string, into: string): void {
  for (const entry of listTree(from, { directories: true })) {
    if (!leftOut(entry.name)) continue
    const target = join(into, entry.name)
    if (existsSync(target) || !existsSync(entry.path)) continue
    mkdirSync(dirname(target), { recursive: true })
    renameSync(entry.path, target)
  }
}

/** What a server without a world directory lacks, as SM_ERR_BACKUP_NOTHING names it. */
export function worldWhat(world: string | undefined): string {
  return `world directory${world ? ` (${world})` : ''}`
}

/** What a server without config files lacks, as SM_ERR_BACKUP_NOTHING names it. */
export function configWhat(server: ServerRecord): string {
  const declared = configFiles(server)
  return declared.length
    ? `config files (${declared.join(', ')})`
    : `config files (none declared: add them with 'server add --config', its profile knows none)`
}
