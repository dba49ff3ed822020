import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import Router from '@koa/router'
import { SmError } from '../../../kernel'
import { AT_PATH, FILE_ERRORS } from '../../files/contract'
import type { WebApp } from '../app'
import { pieceStream } from '../pieces'
import { defineRoute, type WebContext } from '../route'
import { NO_SERVER } from './api-schemas'

const { 403: REFUSED, 404: NO_FILE, 422: PATH_INVALID } = FILE_ERRORS

/**
 * The file manager's routes (admins only) that are more than one command as it is, and its page:
 * files downloaded (streamed, from this machine or piece by piece from another host). Listing, reading, saving (with the hash read, so a change
 * meanwhile is a 409), uploading (multipart), renaming, making folders and deleting are derived
 * from their commands' doors (files/contract.ts).
 */
export function fileRoutes(app: WebApp): Router[] {
  const { bus } = app
  const api = new Router({ prefix: '/api' })
  const tags = ['Files']
  defineRoute(
    api,
    {
      method: 'get',
      path: '/servers/:name/files/download',
      right: 'files',
      name: 'download_file',
      summary: 'Download a file (streamed)',
      tags,
      access: 'admin',
      query: AT_PATH,
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

  const pages = new Router()
  defineRoute(
    pages,
    {
      method: 'get',
      path: '/servers/:name/files',
      right: 'files',
      name: 'page_files',
      summary: "A server's files",
      tags: ['Pages'],
      access: 'admin',
      produces: 'text/html',
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
