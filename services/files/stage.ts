import { appendFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Logger, reasonOf, SmError } from '../../kernel'

/** How long a received file waits for the command that takes it, after its last piece. */
const KEPT_MS = 10 * 60_000

/**
 * Files received for a command that takes one (`from`), piece by piece (files:stage): the manager
 * sends one so to the host of a server on another host (a web upload into its files, a release
 * to update it with). Each upload is a folder of its own in a private temporary folder of this
 * process, removed 10 minutes after its last piece (or once the command moved the file away),
 * and all of them at the service's stop.
 */
export class Stager {
  readonly #logger: Logger
  #root: Promise<string> | undefined
  readonly #expiry = new Map<string, NodeJS.Timeout>()

  constructor(logger: Logger) {
    this.#logger = logger
  }

  async receive(piece: {
    upload: string
    fileName: string
    offset: number
    data: string
    last: boolean
  }): Promise<{ bytes: number; path?: string }> {
    this.#root ??= mkdtemp(join(tmpdir(), 'sm-stage-'))
    const folder = join(await this.#root, piece.upload)
    const file = join(folder, piece.fileName)
    const bytes = Buffer.from(piece.data, 'base64')
    if (piece.offset === 0) {
      await mkdir(folder, { mode: 0o700 })
      await writeFile(file, bytes, { flag: 'wx', mode: 0o600 })
    } else {
      const size = (await stat(file).catch(() => undefined))?.size
      if (size !== piece.offset)
        throw new SmError('SM_ERR_FILE_STAGE_BROKEN', {
          file: piece.fileName,
          reason:
            size === undefined
              ? 'its first pieces are not here (sent elsewhere, or removed after 10 minutes unused)'
              : `${size} bytes are here, and this piece begins at ${piece.offset}`,
        })
      await appendFile(file, bytes)
    }
    this.#keep(piece.upload, folder)
    const total = piece.offset + bytes.length
    return piece.last ? { bytes: total, path: file } : { bytes: total }
  }

  /** Removes every received file (the service stops). */
  async close(): Promise<void> {
    for (const timer of this.#expiry.values()) clearTimeout(timer)
    this.#expiry.clear()
    const root = await this.#root?.catch(() => undefined)
    if (root) await rm(root, { recursive: true, force: true })
  }

  #keep(upload: string, folder: string): void {
    clearTimeout(this.#expiry.get(upload))
    const timer = setTimeout(() => {
      this.#expiry.delete(upload)
      rm(folder, { recursive: true, force: true }).catch((error: unknown) =>
        this.#logger.warn(`A received file in ${folder} could not be removed: ${reasonOf(error)}`),
      )
    }, KEPT_MS)
    timer.unref()
    this.#expiry.set(upload, timer)
  }
}
