import { constants } from 'node:fs'
import { copyFile, link, lstat, mkdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { type ActionOutcome, type BusScope, performAction, reasonOf, SmError } from '../../kernel'
import { readPiece } from '../../lib/pieces'
import { SerialQueue } from '../../lib/serial-queue'
import { ACTIVE } from '../servers/contract'
import { isInside, kindOf, ServerDir, typeOf } from './contained-path'
import type { DownloadFile, FileChange, FileListing, TextFile } from './contract'
import { fsError } from './fs-error'
import { listFolder } from './listing'
import { inFolder, openInside } from './opened-inside'
import { asText, type FileBytes, readBytes, replaceFile, sha256 } from './text-file'

/** A server is running for the file manager while its game may hold its files: starting, running, stopping. */

/**
 * The file manager of servers' directories. Every path is checked by `ServerDir` (inside, by
 * real paths); every change is an action (`before_*` hooks may veto, `after_*` is the fact, with
 * who did it and never a file's contents) and runs one at a time per server. Changes are allowed
 * while a server runs: the reply says so, since a game reads its config files when it starts.
 */
export class FileManager {
  readonly #bus: BusScope
  readonly #queues = new Map<string, SerialQueue>()

  constructor(bus: BusScope) {
    this.#bus = bus
  }

  async list(name: string, path: string | undefined): Promise<FileListing> {
    const dir = await this.#dir(name)
    return listFolder(dir, await dir.target(path ?? ''))
  }

  async read(name: string, path: string): Promise<TextFile> {
    const dir = await this.#dir(name)
    const target = await dir.target(path)
    const file = await readBytes(dir, target.real, target.path, await this.#maxText())
    if (!file) throw new SmError('SM_ERR_FILE_NOT_FOUND', { server: dir.server, path: target.path || '.' })
    const text = asText(target.path, file.bytes)
    return { path: target.path, text, size: file.bytes.length, mtime: file.mtime.toISOString(), hash: file.hash }
  }

  async write(name: string, path: string, text: string, expectedHash: string | undefined) {
    if (typeof text !== 'string')
      throw new SmError('SM_ERR_FILE_NOT_TEXT', { path: String(path), reason: 'what was given to save is not text' })
    const bytes = Buffer.from(text, 'utf8')
    const max = await this.#maxText()
    const dir = await this.#dir(name)
    return this.#serial(dir.server, async () => {
      const target = await dir.target(path)
      if (target.isRoot) throw folderNotFile('')
      const check = async () => {
        const now = await readBytes(dir, target.real, target.path, max)
        expectVersion(target.path, now, expectedHash)
        return now
      }
      // Checked before the hooks (a doomed save never reaches them) and again just before the write.
      await check()
      const outcome = await performAction(this.#bus, {
        before: 'before_file_write',
        after: 'after_file_write',
        payload: { serverName: dir.server, path: target.path, bytes: bytes.length },
        perform: () =>
          this.#guard(dir, target.path, 'written', async () => {
            const now = await check()
            const written = await replaceFile(dir, target.real, target.path, now?.mode, (temp) =>
              writeFile(temp, bytes, { flag: 'wx' }),
            )
            return { created: now === undefined, written }
          }),
        message: ({ created }) => `${created ? 'Created' : 'Saved'} ${target.path} (${bytes.length} bytes).`,
      })
      const { created, written } = this.#settled(outcome, dir, 'save', target.path)
      const change = await this.#changed(dir, target.path, outcome)
      // Saved in the folder that was checked and opened; a folder on its path swapped since (for a
      // link, say) means the path now leads elsewhere: the save is told as done, with what happened.
      const after = await stat(target.real).catch(() => undefined)
      const moved =
        after?.ino === written.ino && after.dev === written.dev
          ? undefined
          : new SmError('SM_ERR_FILE_PATH_MOVED', { path: target.path }).message
      const warning = [change.warning, moved].filter(Boolean).join(' ')
      return {
        ...change,
        ...(warning ? { warning } : {}),
        ...(moved ? { warningCode: 'SM_ERR_FILE_PATH_MOVED' } : {}),
        size: bytes.length,
        mtime: written.mtime.toISOString(),
        hash: sha256(bytes),
        created,
      }
    })
  }

  async upload(name: string, path: string, from: string, { overwrite, move }: { overwrite?: boolean; move?: boolean }) {
    const source = await stat(from).catch((error: NodeJS.ErrnoException) => {
      throw new SmError('SM_ERR_FILE_SOURCE_MISSING', {
        from,
        reason: error.code === 'ENOENT' ? 'there is nothing there' : reasonOf(error),
      })
    })
    if (!source.isFile())
      throw new SmError('SM_ERR_FILE_SOURCE_MISSING', { from, reason: `it is ${kindOf(source)}, not a file` })
    const size = source.size
    const dir = await this.#dir(name)
    return this.#serial(dir.server, async () => {
      const target = await dir.target(path)
      if (target.isRoot) throw new SmError('SM_ERR_FILE_ROOT_REFUSED', { server: dir.server, action: 'replaced' })
      if (target.stats?.isDirectory()) throw folderNotFile(target.path)
      if (target.stats && overwrite !== true)
        throw new SmError('SM_ERR_FILE_EXISTS', {
          path: target.path,
          hint: 'Upload it again saying to replace it (overwrite), or choose another name.',
        })
      const outcome = await performAction(this.#bus, {
        before: 'before_file_upload',
        after: 'after_file_upload',
        payload: { serverName: dir.server, path: target.path, bytes: size },
        perform: () =>
          this.#guard(dir, target.path, 'written', async () => {
            const mode = (await stat(target.real).catch(() => undefined))?.mode
            await replaceFile(dir, target.real, target.path, mode, (temp) => bringIn(from, temp, move === true))
            return { replaced: mode !== undefined }
          }),
        message: ({ replaced }) => `${replaced ? 'Replaced' : 'Uploaded'} ${target.path} (${size} bytes).`,
      })
      const { replaced } = this.#settled(outcome, dir, 'upload', target.path)
      return { ...(await this.#changed(dir, target.path, outcome)), size, replaced }
    })
  }

  async download(name: string, path: string): Promise<DownloadFile> {
    const dir = await this.#dir(name)
    const target = await dir.target(path)
    if (!target.stats) throw new SmError('SM_ERR_FILE_NOT_FOUND', { server: dir.server, path: target.path || '.' })
    if (!target.stats.isFile())
      throw new SmError('SM_ERR_FILE_WRONG_TYPE', {
        path: target.path,
        expected: 'a file',
        actual: kindOf(target.stats),
      })
    // Opened as the web route will open it: what the system will not let it read is refused here,
    // coded, and the identity is that of the file opened inside.
    const { handle } = await openInside(dir, target.real, target.path, constants.O_RDONLY | constants.O_NONBLOCK)
    const stats = await handle.stat({ bigint: true }).finally(() => handle.close())
    return {
      path: target.path,
      file: target.real,
      name: target.name,
      size: Number(stats.size),
      mtime: target.stats.mtime.toISOString(),
      identity: `${stats.dev}:${stats.ino}`,
    }
  }

  /** A piece of a file `download` located, while what is at `path` is still that file (`identity`). */
  async readBytes(name: string, path: string, identity: string, offset: number, length: number) {
    const dir = await this.#dir(name)
    const target = await dir.target(path)
    if (!target.stats) throw new SmError('SM_ERR_FILE_REPLACED', { path: target.path, reason: 'was removed' })
    if (!target.stats.isFile())
      throw new SmError('SM_ERR_FILE_WRONG_TYPE', {
        path: target.path || '.',
        expected: 'a file',
        actual: kindOf(target.stats),
      })
    const { handle } = await openInside(dir, target.real, target.path, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const stats = await handle.stat({ bigint: true })
      if (`${stats.dev}:${stats.ino}` !== identity)
        throw new SmError('SM_ERR_FILE_REPLACED', { path: target.path, reason: 'was replaced' })
      return await readPiece(handle, offset, length, Number(stats.size))
    } finally {
      await handle.close()
    }
  }

  async rename(name: string, path: string, to: string) {
    const dir = await this.#dir(name)
    return this.#serial(dir.server, async () => {
      const from = await dir.entry(path)
      if (from.isRoot) throw new SmError('SM_ERR_FILE_ROOT_REFUSED', { server: dir.server, action: 'renamed' })
      const dest = await dir.entry(to)
      if (dest.isRoot)
        throw new SmError('SM_ERR_FILE_PATH_INVALID', { path: String(to), reason: 'it gives no new name' })
      const own = await lstat(from.entry).catch((error) => {
        throw fsError(error, { server: dir.server, path: from.path, action: 'found' })
      })
      await mustNotExist(dest.entry, dest.path, 'Choose another name, or delete it first.')
      if (own.isDirectory() && isInside(from.entry, dest.parent))
        throw new SmError('SM_ERR_FILE_PATH_INVALID', { path: dest.path, reason: 'a folder cannot move into itself' })
      const outcome = await performAction(this.#bus, {
        before: 'before_file_rename',
        after: 'after_file_rename',
        payload: { serverName: dir.server, path: from.path, to: dest.path },
        perform: () =>
          this.#guard(dir, from.path, 'renamed', () =>
            inFolder(dir, from.parent, from.path, (source) =>
              inFolder(dir, dest.parent, dest.path, (target) => rename(source(from.name), target(dest.name))),
            ),
          ),
        message: () => `Renamed ${from.path} to ${dest.path}.`,
      })
      this.#settled(outcome, dir, 'rename', from.path)
      return { ...(await this.#changed(dir, from.path, outcome)), to: dest.path }
    })
  }

  async mkdir(name: string, path: string): Promise<FileChange> {
    const dir = await this.#dir(name)
    return this.#serial(dir.server, async () => {
      const entry = await dir.entry(path)
      if (entry.isRoot)
        throw new SmError('SM_ERR_FILE_PATH_INVALID', { path: String(path), reason: 'it gives no name for the folder' })
      await mustNotExist(entry.entry, entry.path, 'Open it, or choose another name.')
      const outcome = await performAction(this.#bus, {
        before: 'before_directory_create',
        after: 'after_directory_create',
        payload: { serverName: dir.server, path: entry.path },
        perform: () =>
          this.#guard(dir, entry.path, 'created', () =>
            inFolder(dir, entry.parent, entry.path, (at) => mkdir(at(entry.name)).then(() => undefined)),
          ),
        message: () => `Made the folder ${entry.path}.`,
      })
      this.#settled(outcome, dir, 'new folder', entry.path)
      return this.#changed(dir, entry.path, outcome)
    })
  }

  async delete(name: string, path: string) {
    const dir = await this.#dir(name)
    return this.#serial(dir.server, async () => {
      const entry = await dir.entry(path)
      if (entry.isRoot) throw new SmError('SM_ERR_FILE_ROOT_REFUSED', { server: dir.server, action: 'deleted' })
      const own = await lstat(entry.entry).catch((error) => {
        throw fsError(error, { server: dir.server, path: entry.path, action: 'found' })
      })
      const kind = typeOf(own)
      const outcome = await performAction(this.#bus, {
        before: 'before_file_delete',
        after: 'after_file_delete',
        payload: { serverName: dir.server, path: entry.path, kind },
        perform: () =>
          // A link is removed as a link (rm never follows one), a folder with everything in it.
          this.#guard(dir, entry.path, 'deleted', () =>
            inFolder(dir, entry.parent, entry.path, (at) => rm(at(entry.name), { recursive: kind === 'directory' })),
          ),
        message: () => `Deleted ${kind === 'directory' ? 'the folder ' : ''}${entry.path}.`,
      })
      this.#settled(outcome, dir, 'delete', entry.path)
      return { ...(await this.#changed(dir, entry.path, outcome)), kind }
    })
  }

  async #dir(name: string): Promise<ServerDir> {
    // Only this machine's servers come here (index.ts sends the others' commands to their hosts).
    const server = await this.#bus.request('servers:info', { name })
    return ServerDir.open(server.name, server.dir)
  }

  async #maxText(): Promise<number> {
    return Number((await this.#bus.request('settings:get', { key: 'files.max_text_kb' })).value) * 1024
  }

  /** Changes to one server's files run one at a time: a save's version check and its rename are one step. */
  #serial<T>(server: string, job: () => Promise<T>): Promise<T> {
    let queue = this.#queues.get(server)
    if (!queue) {
      queue = new SerialQueue()
      this.#queues.set(server, queue)
    }
    return queue.run(job)
  }

  /** Runs an action's work, its file system errors coded (so the fact records the code). */
  async #guard<T>(dir: ServerDir, path: string, action: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw fsError(error, { server: dir.server, path, action })
    }
  }

  #settled<T>(outcome: ActionOutcome<T>, dir: ServerDir, action: string, path: string): T {
    if (outcome.status === 'cancelled')
      throw new SmError('SM_ERR_FILE_CHANGE_CANCELLED', {
        server: dir.server,
        action,
        path,
        by: outcome.by,
        reason: outcome.reason,
      })
    if (outcome.status === 'error') throw outcome.error
    return outcome.value
  }

  /** The common part of a change's reply: its message, with what a running server means for it. */
  async #changed(dir: ServerDir, path: string, outcome: ActionOutcome<unknown>): Promise<FileChange> {
    const done = String(outcome.result.message ?? 'Done.')
    // Done is done: a status that cannot be read now does not turn the change into a failure.
    const status = await this.#bus.request('servers:status', { name: dir.server }).catch(() => undefined)
    const running = status !== undefined && ACTIVE.includes(status.status)
    // Said only of a change to one of its config files (its profile's): a world, a folder or a
    // note changes nothing a restart would apply.
    const config =
      running &&
      (await this.#bus
        .request('servers:profile', { name: dir.server })
        .then((profile) => profile.configFiles.some((file) => file === path || file.startsWith(`${path}/`)))
        .catch(() => false))
    const message = config
      ? `${done} '${dir.server}' is running: a game reads its config files when it starts, so restart it to apply this change.`
      : done
    const unrecorded = outcome.status === 'success' ? outcome.unrecorded : undefined
    const warning = unrecorded && `Done, but not recorded in the event log; do not repeat it. ${unrecorded}`
    return { path, message, running, ...(warning ? { warning } : {}) }
  }
}

function folderNotFile(path: string): SmError {
  return new SmError('SM_ERR_FILE_WRONG_TYPE', { path: path || '.', expected: 'a file', actual: 'a folder' })
}

/** A save names the version it read (its hash); without one, the file must be new. */
function expectVersion(path: string, now: FileBytes | undefined, expectedHash: string | undefined): void {
  if (expectedHash === undefined) {
    if (now)
      throw new SmError('SM_ERR_FILE_EXISTS', {
        path,
        hint: 'Open it and save with the hash it was read with (expectedHash), or choose another name.',
      })
    return
  }
  if (!now) throw new SmError('SM_ERR_FILE_CHANGED', { path, reason: 'was deleted' })
  if (now.hash !== expectedHash) throw new SmError('SM_ERR_FILE_CHANGED', { path, reason: 'was changed' })
}

async function mustNotExist(entry: string, path: string, hint: string): Promise<void> {
  const there = await lstat(entry).then(
    () => true,
    () => false,
  )
  if (there) throw new SmError('SM_ERR_FILE_EXISTS', { path, hint })
}

/**
 * Puts the file at `from` at `temp`, which is created exclusively either way: moved when the
 * caller gives it away and it is on the same file system (a second name for it, then the first
 * one goes: no second write of it), else a copy the kernel makes (a clone where the file system
 * can): never the whole file in memory.
 */
async function bringIn(from: string, temp: string, move: boolean): Promise<void> {
  if (move)
    try {
      await link(from, temp)
      // Given away: its caller deletes it anyway, so a name left here costs nothing.
      await unlink(from).catch(() => {})
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    }
  await copyFile(from, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE)
}
