import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { isSmError, reasonOf, SmError } from '../../kernel'
import { extractZip, isJar, readZipEntries, UnsafeEntryError } from './backups/archive'
import { checkRoom } from './backups/unpack-limits'
import type { ServerRecord } from './contract'
import { detectProfile } from './detect'
import { configFiles, worldOf } from './world'

/**
 * Where a server's files come from. A zip and a directory are built in; a download source (the
 * official Bedrock download page, a mirror) would be another implementation of this interface,
 * chosen by its `--from` form (these machines have no internet, so none is shipped).
 */
export interface InstallSource {
  /** What it is, for messages and the event log. */
  readonly description: string
  /** Puts the server files into `into` (which does not exist yet). */
  fetch(into: string): Promise<void>
}

/** Where a release goes and how much it may unpack to (servers.max_unpacked_mb, in bytes). */
export interface InstallRoom {
  /** The folder it goes to (or beside): its disk must have room for it. */
  readonly into: string
  readonly maxBytes: number
}

/**
 * What `--from` names: a Bedrock server zip, a Java Edition server jar, or an unpacked directory of
 * either; refused before anything is written when it is not that, holds a link, or does not fit
 * (the cap of `room` for a zip, the free space of its disk for all three).
 */
export async function installSource(from: string, room: InstallRoom): Promise<InstallSource> {
  const text = String(from ?? '')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new SmError('SM_ERR_INSTALL_SOURCE_UNSUPPORTED', { source: text })
  const path = resolve(text)
  if (!existsSync(path)) throw new SmError('SM_ERR_INSTALL_INVALID', { source: path, reason: 'it does not exist' })
  // A jar is a zip too, but it is the server itself: it goes into the directory whole.
  if (path.endsWith('.jar') && statSync(path).isFile()) {
    if (!(await isJar(path)))
      throw new SmError('SM_ERR_INSTALL_INVALID', {
        source: path,
        reason: 'it is not a Java program (a jar is a zip holding META-INF/MANIFEST.MF or class files)',
      })
    checkRoom(path, statSync(path).size, room.into, Number.POSITIVE_INFINITY)
    return {
      description: path,
      fetch: async (into) => {
        mkdirSync(into, { recursive: true })
        copyFileSync(path, join(into, basename(path)))
      },
    }
  }
  if (statSync(path).isDirectory()) {
    checkRoom(path, folderBytes(path), room.into, Number.POSITIVE_INFINITY)
    return {
      description: path,
      fetch: async (into) => {
        cpSync(path, into, { recursive: true, preserveTimestamps: true })
      },
    }
  }
  let entries: { size: number }[]
  try {
    entries = await readZipEntries(path)
  } catch (error) {
    if (error instanceof UnsafeEntryError)
      throw new SmError('SM_ERR_BACKUP_UNSAFE_ENTRY', { file: path, entry: error.entry, reason: error.reason })
    throw new SmError('SM_ERR_INSTALL_INVALID', {
      source: path,
      reason: `it is neither a directory nor a readable zip (${reasonOf(error)})`,
    })
  }
  checkRoom(
    path,
    entries.reduce((sum, entry) => sum + entry.size, 0),
    room.into,
    room.maxBytes,
  )
  return {
    description: path,
    fetch: async (into) => {
      await extractZip(path, into, undefined, undefined, { maxBytes: room.maxBytes }) // its entries were checked above
    },
  }
}

/**
 * The bytes of a folder's files; a link in it is refused (copied, a `worlds` link in a release
 * would lead the server's writes elsewhere), as a zip's link entry is.
 */
function folderBytes(dir: string): number {
  let bytes = 0
  const walk = (at: string) => {
    for (const item of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, item.name)
      if (item.isSymbolicLink())
        throw new SmError('SM_ERR_BACKUP_UNSAFE_ENTRY', {
          file: dir,
          entry: relative(dir, path),
          reason: 'it is a symbolic link',
        })
      if (item.isDirectory()) walk(path)
      else if (item.isFile()) bytes += lstatSync(path).size
    }
  }
  walk(dir)
  return bytes
}

/** The files an update keeps from the installed server (the release's copies are not used). */

/** Fetches a release next to `target` and checks it is a server (Bedrock or Java Edition); the caller moves it into place. */
export async function stageRelease(source: InstallSource, target: string): Promise<string> {
  const staging = `${target}.incoming-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(dirname(staging), { recursive: true })
  try {
    await source.fetch(staging)
    const root = releaseRoot(staging)
    if (!root)
      throw new SmError('SM_ERR_INSTALL_INVALID', {
        source: source.description,
        reason: 'it holds no bedrock_server and no server jar (at its top, or in one folder)',
      })
    if (detectProfile(root) === 'bedrock') chmodSync(join(root, 'bedrock_server'), 0o755)
    if (root !== staging) {
      // The zip held one folder with the server in it: that folder is the release.
      const inner = `${staging}.root`
      renameSync(root, inner)
      rmSync(staging, { recursive: true, force: true })
      renameSync(inner, staging)
    }
    return staging
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    if (isSmError(error)) throw error
    throw new SmError('SM_ERR_INSTALL_INVALID', { source: source.description, reason: reasonOf(error) })
  }
}

/** Copies a staged release over an installed server, keeping its configuration and worlds. */
export function applyUpdate(staging: string, dir: string, kept: readonly string[]): string[] {
  const replaced: string[] = []
  for (const name of readdirSync(staging)) {
    if (kept.includes(name) && existsSync(join(dir, name))) continue
    rmSync(join(dir, name), { recursive: true, force: true })
    renameSync(join(staging, name), join(dir, name))
    replaced.push(name)
  }
  rmSync(staging, { recursive: true, force: true })
  return replaced
}

/**
 * What an update never replaces in a server's directory (when it has it): its profile's config
 * files and its world (Bedrock's `worlds`, a Java server's level folder with its `_nether` and
 * `_the_end`), by their top-level names.
 */
export function keptOnUpdate(server: ServerRecord): string[] {
  const top = (path: string) => relative(server.dir, path).split(sep)[0] ?? ''
  const kept = configFiles(server).map((name) => top(resolve(server.dir, name)))
  const world = worldOf(server)
  if (world) {
    const name = top(world)
    kept.push(name)
    if (existsSync(server.dir)) kept.push(...readdirSync(server.dir).filter((entry) => entry.startsWith(`${name}_`)))
  }
  return [...new Set(kept.filter((name) => name && name !== '..'))]
}

/**
 * A Java release that is one jar (`paper-1.21.4-12.jar`) replaces the jar the server runs, under
 * the name it runs it by (its `-jar` argument), so its command line stays as it is.
 */
export function renameJarForUpdate(staging: string, server: ServerRecord): void {
  const at = server.args.indexOf('-jar')
  const running = at >= 0 ? server.args[at + 1] : undefined
  const items = readdirSync(staging)
  const only = items.length === 1 ? items[0] : undefined
  if (!running || !only?.endsWith('.jar') || only === running || running.includes('/')) return
  renameSync(join(staging, only), join(staging, running))
}

/** Where the server is in a fetched release: at its top, or in its one folder. */
function releaseRoot(dir: string): string | undefined {
  if (detectProfile(dir) !== 'generic') return dir
  const items = readdirSync(dir)
  const only = items.length === 1 ? join(dir, items[0] as string) : undefined
  return only && statSync(only).isDirectory() && detectProfile(only) !== 'generic' ? only : undefined
}
