import type { Stats } from 'node:fs'
import { lstat, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative } from 'node:path'
import { SmError } from '../../kernel'
import type { FileEntry } from './contract'
import { fsError } from './fs-error'

/** The longest path and name accepted (Linux's PATH_MAX and NAME_MAX, in bytes). */
const MAX_PATH_BYTES = 4096
const MAX_NAME_BYTES = 255

/** Whether `real` (a real path) is `root` or inside it. */
export function isInside(root: string, real: string): boolean {
  const rel = relative(root, real)
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel))
}

/**
 * The names of a path a user gave, relative to the server directory. Refused by its text alone:
 * anything but a string, a NUL byte, an absolute path, a `..` name, a path or name too long.
 * Empty names and `.` are dropped (`a//./b` is `a/b`); `''` names the directory itself.
 */
export function pathNames(path: unknown): string[] {
  const refuse = (shown: string, reason: string) => new SmError('SM_ERR_FILE_PATH_INVALID', { path: shown, reason })
  if (typeof path !== 'string') throw refuse(String(path), 'it is not text')
  if (path.includes('\0')) throw refuse(path.replaceAll('\0', '\\0'), 'it holds a NUL byte')
  if (Buffer.byteLength(path) > MAX_PATH_BYTES)
    throw refuse(`${path.slice(0, 60)}…`, `it is longer than ${MAX_PATH_BYTES} bytes`)
  if (isAbsolute(path)) throw refuse(path, 'it is absolute')
  const names = path.split('/').filter((name) => name !== '' && name !== '.')
  if (names.includes('..')) throw refuse(path, "it holds '..'")
  if (names.some((name) => Buffer.byteLength(name) > MAX_NAME_BYTES))
    throw refuse(path, `a name in it is longer than ${MAX_NAME_BYTES} bytes`)
  return names
}

/** Where a user's path lands: its folder resolved and checked, its own name not followed. */
export interface Entry {
  /** The path as the user gave it, tidied (`''` for the server directory): what messages and facts name. */
  readonly path: string
  /** The real path of its folder (inside the server directory); the directory itself for `''`. */
  readonly parent: string
  /** The last name (`''` for the server directory). */
  readonly name: string
  /** The entry itself: `parent/name` (a link stays a link). */
  readonly entry: string
  readonly isRoot: boolean
}

/** What a user's path leads to, every link followed (the last name too), checked inside. */
export interface Target extends Entry {
  /** The real path of what it names (a link's target; the entry itself when nothing exists there yet). */
  readonly real: string
  /** Its stat (links followed), when something is there. */
  readonly stats: Stats | undefined
}

/**
 * A server's directory as the file manager sees it: every path from a user is relative to it
 * and resolved with real paths (the existing folder's `realpath`), and refused when it leads
 * out, also through a link inside that points out (SM_ERR_FILE_OUTSIDE).
 */
export class ServerDir {
  private constructor(
    readonly server: string,
    /** The real path of the server's directory. */
    readonly root: string,
  ) {}

  static async open(server: string, dir: string): Promise<ServerDir> {
    try {
      return new ServerDir(server, await realpath(dir))
    } catch (error) {
      throw fsError(error, { server, path: '', action: 'opened' })
    }
  }

  inside(real: string): boolean {
    return isInside(this.root, real)
  }

  /** The entry a path names, for changes to the entry itself (delete, rename, a new folder): a link is not followed. */
  async entry(path: unknown): Promise<Entry> {
    const names = pathNames(path)
    const tidy = names.join('/')
    const name = names.at(-1)
    if (name === undefined) return { path: '', parent: this.root, name: '', entry: this.root, isRoot: true }
    const folder = names.slice(0, -1).join('/')
    let parent: string
    try {
      parent = await realpath(join(this.root, folder))
    } catch (error) {
      throw fsError(error, { server: this.server, path: folder, action: 'found' })
    }
    if (!this.inside(parent)) throw this.outside(tidy)
    const kind = await stat(parent)
    if (!kind.isDirectory())
      throw new SmError('SM_ERR_FILE_WRONG_TYPE', { path: folder, expected: 'a folder', actual: kindOf(kind) })
    return { path: tidy, parent, name, entry: join(parent, name), isRoot: false }
  }

  /** What a path leads to, for its contents (list, read, write, upload, download): links followed, checked inside. */
  async target(path: unknown): Promise<Target> {
    const entry = await this.entry(path)
    let own: Stats
    try {
      own = await lstat(entry.entry)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...entry, real: entry.entry, stats: undefined }
      throw fsError(error, { server: this.server, path: entry.path, action: 'read' })
    }
    if (!own.isSymbolicLink()) return { ...entry, real: entry.entry, stats: own }
    let real: string
    try {
      real = await realpath(entry.entry)
    } catch (error) {
      // A link to nothing: nothing to read, and a write would create a file wherever it points.
      throw fsError(error, { server: this.server, path: entry.path, action: 'found' })
    }
    if (!this.inside(real)) throw this.outside(entry.path)
    return { ...entry, real, stats: await stat(real) }
  }

  outside(path: string): SmError {
    return new SmError('SM_ERR_FILE_OUTSIDE', { server: this.server, path })
  }
}

/** What a stat is, as listings and facts name it (an lstat's link is a link). */
export function typeOf(stats: Stats): FileEntry['type'] {
  if (stats.isDirectory()) return 'directory'
  if (stats.isFile()) return 'file'
  if (stats.isSymbolicLink()) return 'link'
  return 'other'
}

const IN_WORDS: Record<FileEntry['type'], string> = {
  directory: 'a folder',
  file: 'a file',
  link: 'a link',
  other: 'a special file',
}

/** A stat's kind in words, for messages. */
export function kindOf(stats: Stats): string {
  return IN_WORDS[typeOf(stats)]
}
