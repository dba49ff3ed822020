import { appendFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type Logger, reasonOf, SmError } from '../../kernel'
import { pidExists } from '../../lib/process-identity'
import { SerialQueue } from '../../lib/serial-queue'

/** How long a received file waits for the command that takes it, after its last piece. */
const KEPT_MS = 10 * 60_000
/** How many uploads may be under way or waiting to be taken at once. */
const MAX_UPLOADS = 64

interface Upload {
  readonly folder: string
  readonly fileName: string
  /** The offset the next piece must begin at. */
  next: number
  done: boolean
  expiry: NodeJS.Timeout
}

/**
 * Files received for a command that takes one (`from`), piece by piece (files:stage): the manager
 * sends one so to the host of a server on another host (a web upload into its files, a release
 * to update it with). Each upload is a folder of its own under `<data dir>/tmp/stage/<pid>/`
 * (private to the owner, as the data directory is; a folder per process, so another process on
 * the data directory, a one-shot CLI, never touches this one's), removed by files:unstage once its
 * command is done, else 10 minutes after its last piece; this process's folder goes at its stop,
 * and those of processes that are gone (killed with -9) at the next start. Pieces are taken one
 * at a time, each at the offset the upload is at.
 */
export class Stager {
  /** Every process's folders. */
  readonly #all: string
  /** This process's. */
  readonly #root: string
  readonly #logger: Logger
  readonly #uploads = new Map<string, Upload>()
  readonly #queue = new SerialQueue()

  constructor(dataDir: string, logger: Logger) {
    this.#all = join(dataDir, 'tmp', 'stage')
    this.#root = join(this.#all, String(process.pid))
    this.#logger = logger
  }

  /** Removes what processes that are gone left (a kill -9, a crash). */
  async open(): Promise<void> {
    const folders = await readdir(this.#all).catch(() => [])
    for (const folder of folders)
      if (folder === String(process.pid) || !pidExists(Number(folder)))
        await rm(join(this.#all, folder), { recursive: true, force: true })
  }

  receive(piece: {
    upload: string
    fileName: string
    offset: number
    data: string
    last: boolean
  }): Promise<{ bytes: number; path?: string }> {
    return this.#queue.run(async () => {
      const broken = (reason: string) => new SmError('SM_ERR_FILE_STAGE_BROKEN', { file: piece.fileName, reason })
      let upload = this.#uploads.get(piece.upload)
      if (piece.offset === 0 && upload) throw broken('that upload id is in use already: every upload has its own')
      if (piece.offset === 0) {
        if (this.#uploads.size >= MAX_UPLOADS)
          throw broken(`${MAX_UPLOADS} uploads are under way or waiting to be taken on this host; try again shortly`)
        const folder = join(this.#root, piece.upload)
        await mkdir(folder, { recursive: true, mode: 0o700 })
        await writeFile(join(folder, piece.fileName), '', { flag: 'wx', mode: 0o600 })
        upload = { folder, fileName: piece.fileName, next: 0, done: false, expiry: this.#expire(piece.upload, folder) }
        this.#uploads.set(piece.upload, upload)
      }
      if (!upload) throw broken('its first pieces are not here (sent elsewhere, or removed after 10 minutes unused)')
      if (upload.done) throw broken('its last piece came already')
      if (piece.fileName !== upload.fileName) throw broken(`its pieces are of '${upload.fileName}'`)
      if (piece.offset !== upload.next)
        throw broken(`${upload.next} bytes are here, and this piece begins at ${piece.offset}`)
      const bytes = Buffer.from(piece.data, 'base64')
      const file = join(upload.folder, upload.fileName)
      await appendFile(file, bytes)
      upload.next += bytes.length
      upload.done = piece.last
      clearTimeout(upload.expiry)
      upload.expiry = this.#expire(piece.upload, upload.folder)
      return piece.last ? { bytes: upload.next, path: file } : { bytes: upload.next }
    })
  }

  /** Removes an upload (its command is done with it, or failed). */
  async remove(id: string): Promise<void> {
    const upload = this.#uploads.get(id)
    if (!upload) return
    this.#uploads.delete(id)
    clearTimeout(upload.expiry)
    await rm(upload.folder, { recursive: true, force: true })
  }

  /** Removes every received file (the service stops). */
  async close(): Promise<void> {
    for (const upload of this.#uploads.values()) clearTimeout(upload.expiry)
    this.#uploads.clear()
    await rm(this.#root, { recursive: true, force: true })
  }

  #expire(id: string, folder: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.remove(id).catch((error: unknown) =>
        this.#logger.warn(`A received file in ${folder} could not be removed: ${reasonOf(error)}`),
      )
    }, KEPT_MS)
    timer.unref()
    return timer
  }
}
