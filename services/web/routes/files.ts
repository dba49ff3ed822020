import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import Router from '@koa/router'
import { z } from 'zod'
import { SmError } from '../../../kernel'
import type { WebApp } from '../app'
import { pieceStream } from '../pieces'
import { defineRoute, requiredUpload, type WebContext } from '../route'
import { NO_SERVER, ServerName, success } from './api-schemas'

const FilePath = z
  .string()
  .max(4096)
  .meta({ description: "relative to the server's directory ('' or none: the directory itself)" })
const AtPath = z.object({ path: FilePath })
const NO_FILE = "No server of that name, or nothing at that path in the server's directory."
const REFUSED = "The path leads out of the server's directory through a symbolic link, or the system refused access."
const PATH_INVALID =
  "The request is not valid (`issues` lists what), or the path cannot be used (absolute, '..', a NUL byte), or names the wrong kind of entry."

const Change = {
  path: z.string(),
  message: z.string(),
  running: z.boolean().meta({
    description: 'the server runs: a game reads its config files when it starts, so a restart applies a config change',
  }),
  warning: z.string().optional().meta({
    description: 'done, but its fact is not in the event log (a full disk): do not repeat it; or see warning_code',
  }),
  warning_code: z.string().optional().meta({
    description:
      'done, and this says what else happened: SM_ERR_FILE_PATH_MOVED, a folder on its path was swapped meanwhile (for a link, say), so the path now leads elsewhere',
  }),
}
const FileEntry = z
  .looseObject({
    name: z.string(),
    type: z.enum(['file', 'directory', 'link', 'other']),
    size: z.number(),
    mtime: z.string(),
    link: z
      .enum(['file', 'directory', 'other', 'outside', 'missing'])
      .optional()
      .meta({ description: 'where a link leads; outside the server directory it is not followed' }),
  })
  .meta({ id: 'FileEntry' })

/**
 * The file manager's routes (admins only) and its page: a server's directory listed, text files
 * read and saved (with the hash read, so a change meanwhile is a 409), files uploaded (multipart)
 * and downloaded (streamed both ways), renamed, folders made, entries deleted.
 */
export function fileRoutes(app: WebApp): Router[] {
  const { bus } = app
  const api = new Router({ prefix: '/api' })
  const tags = ['Files']
  defineRoute(
    api,
    {
      method: 'get',
      path: '/servers/:name/files',
      name: 'list_files',
      summary: "A folder of a server's directory: folders first, then files, each by name",
      tags,
      access: 'admin',
      params: ServerName,
      query: z.object({ path: FilePath.default('') }),
      response: success('FileList', { path: z.string(), entries: z.array(FileEntry), truncated: z.boolean() }),
      errors: { 403: REFUSED, 404: NO_FILE, 422: PATH_INVALID },
    },
    async (_ctx, { params, query }) => ({
      status: 'success',
      ...(await bus.request('files:list', { name: params.name, path: query.path })),
    }),
  )
  defineRoute(
    api,
    {
      method: 'get',
      path: '/servers/:name/files/text',
      name: 'read_file',
      summary:
        'A text file, with the hash a save sends back (binary files and ones over files.max_text_kb: download them)',
      tags,
      access: 'admin',
      params: ServerName,
      query: AtPath,
      response: success('TextFile', {
        path: z.string(),
        text: z.string(),
        size: z.number(),
        mtime: z.string(),
        hash: z.string().meta({ description: 'SHA-256 of the bytes: send it as expected_hash to save' }),
      }),
      errors: {
        403: REFUSED,
        404: NO_FILE,
        422: `${PATH_INVALID} Or the file is binary or too large to show as text.`,
      },
    },
    async (_ctx, { params, query }) => ({
      status: 'success',
      ...(await bus.request('files:read', { name: params.name, path: query.path })),
    }),
  )
  defineRoute(
    api,
    {
      method: 'put',
      path: '/servers/:name/files/text',
      name: 'write_file',
      summary:
        'Save a text file whole, atomically (its mode kept); expected_hash: the hash it was read with (none: a new file). Allowed while the server runs: a restart applies a config change',
      tags,
      access: 'admin',
      params: ServerName,
      body: z.object({
        path: FilePath,
        text: z.string(),
        expected_hash: z.string().max(128).optional(),
      }),
      response: success('FileSaved', {
        ...Change,
        size: z.number(),
        mtime: z.string(),
        hash: z.string(),
        created: z.boolean(),
      }),
      errors: {
        403: REFUSED,
        404: NO_FILE,
        409: 'The file changed or went away since it was read (SM_ERR_FILE_CHANGED), exists though no hash was sent, or a plugin vetoed the save.',
        422: `${PATH_INVALID} Or the text is over files.max_text_kb.`,
      },
    },
    async (_ctx, { params, body }) => {
      const { warningCode, ...saved } = await bus.request('files:write', {
        name: params.name,
        path: body.path,
        text: body.text,
        expectedHash: body.expected_hash,
      })
      return { status: 'success', ...saved, ...(warningCode ? { warning_code: warningCode } : {}) }
    },
  )
  defineRoute(
    api,
    {
      method: 'get',
      path: '/servers/:name/files/download',
      name: 'download_file',
      summary: 'Download a file (streamed)',
      tags,
      access: 'admin',
      params: ServerName,
      query: AtPath,
      produces: 'application/octet-stream',
      errors: {
        403: REFUSED,
        404: NO_FILE,
        409: 'The file was replaced while it was being opened: try again.',
        422: PATH_INVALID,
      },
    },
    async (ctx, { params, query }) => {
      await download(app, ctx, params.name, query.path)
      return undefined
    },
  )
  defineRoute(
    api,
    {
      method: 'post',
      path: '/servers/:name/files/upload',
      name: 'upload_file',
      summary:
        'Upload a file (multipart/form-data: its part named file) to path; an existing one only with overwrite. Written beside it and renamed into place',
      tags,
      access: 'admin',
      params: ServerName,
      body: z.object({
        path: FilePath.min(1),
        overwrite: z
          .union([z.boolean(), z.enum(['true', 'false'])])
          .transform((value) => value === true || value === 'true')
          .optional(),
      }),
      uploads: { file: 'the file (a file part)' },
      status: 201,
      response: success('FileUploaded', { ...Change, size: z.number(), replaced: z.boolean() }),
      errors: {
        403: REFUSED,
        404: NO_FILE,
        409: 'Something is there already (send overwrite to replace a file), or a plugin vetoed the upload.',
        422: `${PATH_INVALID} Or no file part was sent.`,
      },
    },
    async (ctx, { params, body }) => {
      const file = requiredUpload(ctx, 'file')
      return {
        status: 'success',
        ...(await bus.request('files:upload', {
          name: params.name,
          path: body.path,
          from: file.path,
          overwrite: body.overwrite,
          // The spooled file is deleted when the request ends: the service may take it.
          move: true,
        })),
      }
    },
  )
  defineRoute(
    api,
    {
      method: 'post',
      path: '/servers/:name/files/rename',
      name: 'rename_file',
      summary: 'Rename or move a file or folder inside the server directory (a link is moved as a link)',
      tags,
      access: 'admin',
      params: ServerName,
      body: z.object({ path: FilePath.min(1), to: FilePath.min(1) }),
      response: success('FileRenamed', { ...Change, to: z.string() }),
      errors: {
        403: REFUSED,
        404: NO_FILE,
        409: "Something is there already, it is the server's directory itself, or a plugin vetoed it.",
        422: PATH_INVALID,
      },
    },
    async (_ctx, { params, body }) => ({
      status: 'success',
      ...(await bus.request('files:rename', { name: params.name, path: body.path, to: body.to })),
    }),
  )
  defineRoute(
    api,
    {
      method: 'post',
      path: '/servers/:name/files/mkdir',
      name: 'make_folder',
      summary: 'Make a folder (its parent must exist)',
      tags,
      access: 'admin',
      params: ServerName,
      body: z.object({ path: FilePath.min(1) }),
      status: 201,
      response: success('FolderMade', Change),
      errors: {
        403: REFUSED,
        404: NO_FILE,
        409: 'Something is there already, or a plugin vetoed it.',
        422: PATH_INVALID,
      },
    },
    async (_ctx, { params, body }) => ({
      status: 'success',
      ...(await bus.request('files:mkdir', { name: params.name, path: body.path })),
    }),
  )
  defineRoute(
    api,
    {
      method: 'delete',
      path: '/servers/:name/files',
      name: 'delete_file',
      summary: 'Delete a file, a link (never its target) or a folder with everything in it',
      tags,
      access: 'admin',
      params: ServerName,
      query: z.object({ path: FilePath.min(1) }),
      response: success('FileDeleted', { ...Change, kind: z.string() }),
      errors: {
        403: REFUSED,
        404: NO_FILE,
        409: "It is the server's directory itself, or a plugin vetoed it.",
        422: PATH_INVALID,
      },
    },
    async (_ctx, { params, query }) => ({
      status: 'success',
      ...(await bus.request('files:delete', { name: params.name, path: query.path })),
    }),
  )

  const pages = new Router()
  defineRoute(
    pages,
    {
      method: 'get',
      path: '/servers/:name/files',
      name: 'page_files',
      summary: "A server's files",
      tags: ['Pages'],
      access: 'admin',
      produces: 'text/html',
      params: ServerName,
      errors: { 404: NO_SERVER },
    },
    async (ctx, { params }) => {
      const server = await bus.request('servers:info', { name: params.name })
      const run = await bus.request('servers:status', { name: params.name })
      await ctx.render('files', { title: `${server.name}: files`, server, run })
      return undefined
    },
  )
  return [api, pages]
}

/**
 * Streams a file the files service located and checked: opened without following a link, and
 * refused unless what was opened is what was checked (its device and inode), so a file swapped
 * in between is never sent.
 */
async function download(app: WebApp, ctx: WebContext, name: string, path: string): Promise<void> {
  const file = await app.bus.request('files:download', { name, path })
  if (file.host !== undefined) {
    // On another host: read there piece by piece, as long as it is the file located.
    const body = await pieceStream(
      (offset, length) =>
        app.bus.request('files:read_bytes', { name, path: file.path, identity: file.identity, offset, length }),
      file.size,
    )
    ctx.attachment(file.name)
    ctx.type = 'application/octet-stream'
    ctx.length = file.size
    ctx.body = body
    return
  }
  const handle = await open(file.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  )
  const stats = await handle?.stat({ bigint: true })
  if (!handle || !stats || `${stats.dev}:${stats.ino}` !== file.identity) {
    await handle?.close()
    throw new SmError('SM_ERR_FILE_REPLACED', { path: file.path, reason: 'was replaced' })
  }
  ctx.attachment(file.name)
  // Whatever its name says: the browser saves it, it never shows it as a page of this origin.
  ctx.type = 'application/octet-stream'
  // The size located and announced: a file that grows meanwhile (a game's log) is not sent past it.
  const size = Number(stats.size)
  ctx.length = size
  if (size === 0) {
    await handle.close()
    ctx.body = ''
  } else ctx.body = handle.createReadStream({ end: size - 1 })
}
