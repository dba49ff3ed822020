import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'
import type { Context } from 'koa'
import { SmError } from '../../kernel/errors'

/** A file uploaded with a multipart form, on disk for the length of the request. */
export interface UploadedFile {
  /** The name the client gave it (never a path on this machine: use it only as a label). */
  readonly filename: string
  readonly mimeType: string
  readonly size: number
  /** Where it is now; it is deleted when the request ends, so move or copy it before. */
  readonly path: string
}

/**
 * Parses a `multipart/form-data` body: fields into `ctx.request.body` (strings), files into
 * `ctx.request.files` (on disk, in a folder of their own). Resolves with a function that
 * deletes the files. A file over `maxFileBytes`, or more than 20 files, is refused with 413.
 */
export async function parseMultipart(ctx: Context, options: { maxFileBytes: number; maxFieldBytes: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-upload-'))
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  // Null-prototype: the names are the client's, so only what it sent is in them (and `__proto__` is a name).
  const fields: Record<string, string> = Object.create(null)
  const files: Record<string, UploadedFile> = Object.create(null)
  const writes: Promise<void>[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({
        headers: ctx.req.headers,
        limits: {
          fileSize: options.maxFileBytes,
          fieldSize: options.maxFieldBytes,
          files: 20,
          fields: 200,
          parts: 220,
        },
      })
      const tooLarge = () =>
        reject(new SmError('SM_ERR_WEB_UPLOAD_TOO_LARGE', { limitMb: Math.round(options.maxFileBytes / 1048576) }))
      parser.on('field', (name, value, info) => {
        if (info.valueTruncated) return tooLarge()
        fields[name] = value
      })
      parser.on('file', (name, stream, info) => {
        const path = join(dir, String(writes.length))
        let size = 0
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length
        })
        stream.on('limit', tooLarge)
        const write = pipeline(stream, createWriteStream(path)).then(() => {
          files[name] = { filename: info.filename ?? name, mimeType: info.mimeType, size, path }
        })
        // Observed at once: after a refusal the folder is gone and this write fails, by design.
        write.catch(() => {})
        writes.push(write)
      })
      parser.on('filesLimit', tooLarge)
      parser.on('fieldsLimit', tooLarge)
      parser.on('error', (error: Error) =>
        reject(new SmError('SM_ERR_WEB_BAD_MULTIPART', { reason: error.message }, { cause: error })),
      )
      parser.on('close', () => resolve())
      ctx.req.pipe(parser)
    }).catch((error: unknown) => {
      // Stop parsing, and let the rest of the body drain so the refusal can be answered.
      ctx.req.unpipe()
      ctx.req.resume()
      throw error
    })
    await Promise.all(writes)
  } catch (error) {
    cleanup()
    throw error
  }
  ctx.request.body = fields
  ;(ctx.request as { files?: Record<string, UploadedFile> }).files = files
  return cleanup
}
