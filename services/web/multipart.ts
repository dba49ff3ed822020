import { once } from 'node:events'
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'
import type { Context } from 'koa'
import { reasonOf, SmError } from '../../kernel/errors'

/** A file uploaded with a multipart form, on disk for the length of the request. */
export interface UploadedFile {
  /** The name the client gave it (never a path on this machine: use it only as a label). */
  readonly filename: string
  readonly mimeType: string
  readonly size: number
  /** Where it is now; it is deleted when the request ends, so move or copy it before. */
  readonly path: string
}

/** The limits of one multipart request. */
export interface UploadLimits {
  /** The whole body: every file and field together (web.max_upload_mb). */
  readonly maxBytes: number
  /** One field's value (web.max_body_kb). */
  readonly maxFieldBytes: number
}

/**
 * Parses a `multipart/form-data` body: fields into `ctx.request.body` (strings), files into
 * `ctx.request.files` (on disk, in a folder of their own). Resolves with a function that
 * deletes the files. A request over `maxBytes` in all (its declared length is refused before a
 * byte is read), a field over `maxFieldBytes`, or more than 20 files or 200 fields is refused
 * with 413; reading stops there (the answer closes the connection), and what was written is deleted.
 * `beforeReading` runs once the body is accepted for reading (to send 100 Continue).
 */
export async function parseMultipart(
  ctx: Context,
  limits: UploadLimits,
  beforeReading: () => void = () => {},
): Promise<() => void> {
  const tooLarge = () =>
    new SmError('SM_ERR_WEB_UPLOAD_TOO_LARGE', {
      limitMb: Math.round(limits.maxBytes / 1048576),
      fieldKb: Math.round(limits.maxFieldBytes / 1024),
    })
  if (Number(ctx.get('content-length')) > limits.maxBytes) throw tooLarge()
  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers: ctx.req.headers,
      limits: { fileSize: limits.maxBytes, fieldSize: limits.maxFieldBytes, files: 20, fields: 200, parts: 220 },
    })
  } catch (error) {
    // A content type without a boundary, say.
    throw new SmError('SM_ERR_WEB_BAD_MULTIPART', { reason: reasonOf(error) }, { cause: error })
  }
  beforeReading()
  const dir = mkdtempSync(join(tmpdir(), 'sm-upload-'))
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  // Null-prototype: the names are the client's, so only what it sent is in them (and `__proto__` is a name).
  const fields: Record<string, string> = Object.create(null)
  const files: Record<string, UploadedFile> = Object.create(null)
  const writes: Promise<void>[] = []
  // The file each part is written to: a refusal closes them all before the folder goes.
  const sinks: WriteStream[] = []
  const req = ctx.req
  let received = 0
  let refuse = () => {}
  const count = (chunk: Buffer) => {
    received += chunk.length
    if (received > limits.maxBytes) refuse()
  }
  try {
    await new Promise<void>((resolve, reject) => {
      refuse = () => reject(tooLarge())
      req.on('data', count)
      parser.on('field', (name, value, info) => {
        if (info.valueTruncated) return refuse()
        fields[name] = value
      })
      parser.on('file', (name, stream, info) => {
        const path = join(dir, String(writes.length))
        let size = 0
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length
        })
        stream.on('limit', refuse)
        const sink = createWriteStream(path)
        sinks.push(sink)
        const write = pipeline(stream, sink).then(() => {
          files[name] = { filename: info.filename ?? name, mimeType: info.mimeType, size, path }
        })
        // Observed at once: after a refusal the folder is gone and this write fails, by design.
        write.catch(() => {})
        writes.push(write)
      })
      parser.on('filesLimit', refuse)
      parser.on('fieldsLimit', refuse)
      parser.on('partsLimit', refuse)
      parser.on('error', (error: Error) =>
        reject(new SmError('SM_ERR_WEB_BAD_MULTIPART', { reason: error.message }, { cause: error })),
      )
      parser.on('close', () => resolve())
      req.pipe(parser)
    })
      .catch((error: unknown) => {
        // Stop reading: the refusal is answered with Connection: close, so the rest is never read.
        req.unpipe(parser)
        req.pause()
        parser.destroy()
        throw error
      })
      .finally(() => req.off('data', count))
    await Promise.all(writes)
  } catch (error) {
    // A file still being opened or written (in the thread pool) would be made in the folder while
    // it is removed (ENOTEMPTY, a 500 and the folder left behind): each is ended and closed first.
    await Promise.all(
      sinks.map((sink) => {
        if (sink.closed) return undefined
        const closed = once(sink, 'close').catch(() => {})
        sink.destroy()
        return closed
      }),
    )
    cleanup()
    throw error
  }
  ctx.request.body = fields
  ;(ctx.request as { files?: Record<string, UploadedFile> }).files = files
  return cleanup
}
