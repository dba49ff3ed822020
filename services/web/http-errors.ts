import { randomUUID } from 'node:crypto'
import type { Context } from 'koa'
import { type Logger, SmError, toSmError } from '../../kernel'
import { errorSpec } from '../../kernel/error-catalogue'
import type { WebState } from './route'

/** 5xx codes whose own message is written for the client (no parameter of theirs is internal). */
const PUBLIC_5XX = new Set([
  'SM_ERR_WEB_UNAVAILABLE',
  'SM_ERR_HOST_UNREACHABLE',
  // A plugin's route that ended its thread: the plugin and the route are named, nothing of the manager.
  'SM_ERR_PLUGIN_TIMEOUT',
  'SM_ERR_PLUGIN_OUT_OF_MEMORY',
  'SM_ERR_PLUGIN_EXTERNAL_MEMORY',
  'SM_ERR_PLUGIN_RESTARTING',
])

/**
 * 5xx codes whose own message an admin is told: a full disk keeps the detail from the log too,
 * and the admin is the one to free space on the disk it names.
 */
const ADMIN_5XX = new Set(['SM_ERR_DB_FULL', 'SM_ERR_DISK_FULL'])

/**
 * Turns anything a route threw into the JSON error body every client gets:
 * `{status: 'error', code, message, detail}` (`detail` is the original's FastAPI field), with
 * the status of the error's code, `WWW-Authenticate` on a 401, `issues` on a validation 422
 * and `reply` on a refused console command. A browser asking for a page it may not see is sent
 * to the sign-in page instead. A 5xx says only what the code means and where its detail is: the
 * detail (a raw message, a path on this machine) goes to the log, under a request id the body
 * names; an admin is told a full disk's own message (the log cannot take it).
 */
export function writeError(ctx: Context, thrown: unknown, logger: Logger): void {
  const error = asSmError(thrown, ctx)
  if (error.status === 401 && ctx.method === 'GET' && wantsHtml(ctx)) {
    ctx.redirect(`/login?next=${encodeURIComponent(ctx.originalUrl)}`)
    return
  }
  const message = error.status >= 500 ? internalMessage(ctx, error, thrown, logger) : error.webMessage
  ctx.status = error.status
  if (error.status === 401) ctx.set('WWW-Authenticate', 'Bearer')
  if (error.code === 'SM_ERR_AUTH_RATE_LIMITED')
    ctx.set('Retry-After', String((error.params as { seconds: number }).seconds))
  if (error.code === 'SM_ERR_WEB_UNAVAILABLE') ctx.set('Retry-After', '1')
  if (error.code === 'SM_ERR_PLUGIN_RESTARTING')
    ctx.set('Retry-After', String(Math.max(1, Math.ceil((error.params as { seconds: number }).seconds))))
  if (wantsHtml(ctx) && ctx.method === 'GET') {
    ctx.type = 'html'
    ctx.body = errorPage(error.status, message, error.code)
  } else ctx.body = errorBody(error.code, message, error.status < 500 ? bodyFields(error) : {})
}

/**
 * The parameters of a client error that its body carries as fields of their own: `issues` (a
 * 422's validation issues) and `reply` (the lines a game answered to a command it refused).
 */
function bodyFields(error: SmError): { issues?: unknown; reply?: unknown } {
  const params = (error.params ?? {}) as { issues?: unknown; reply?: unknown }
  return {
    ...(params.issues ? { issues: params.issues } : {}),
    ...(Array.isArray(params.reply) ? { reply: params.reply } : {}),
  }
}

/** The coded JSON error body every HTTP error answers with. */
export function errorBody(code: string, message: string, fields: { issues?: unknown; reply?: unknown } = {}) {
  return { status: 'error', code, message, detail: message, ...fields }
}

/**
 * What a client is told of a 5xx: what its code means (the catalogue's text, no parameters) and
 * the request id under which the log has the rest.
 */
function internalMessage(ctx: Context, error: SmError, thrown: unknown, logger: Logger): string {
  if (PUBLIC_5XX.has(error.code)) return error.message
  if (ADMIN_5XX.has(error.code) && (ctx.state as WebState).user?.role === 'admin') return error.message
  const requestId = randomUUID().slice(0, 8)
  try {
    logger.error(`${ctx.method} ${ctx.path} failed (request ${requestId}): ${error.code}: ${error.message}`, {
      requestId,
      code: error.code,
      stack: String((thrown as Error)?.stack ?? thrown),
    })
  } catch {
    // The log cannot be written (a full disk): the client still gets its answer.
  }
  const when = errorSpec(error.code)?.when ?? 'An unexpected failure inside server-manager.'
  return `${when} The request could not be completed (${error.code}). The manager's log (logs/server-manager.log in its data directory) has the details under request ${requestId}: retry, and report them if it happens again.`
}

/**
 * What Node's HTTP parser answers for a request it cannot read (a bad request line, headers too
 * large, a timeout), as a whole raw response: the coded JSON shape instead of an empty 400.
 */
export function clientErrorResponse(error: NodeJS.ErrnoException): string {
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
  const refused = refusedWith(status, `the request is not valid HTTP (${error.code ?? 'unreadable'})`)
  const body = JSON.stringify(errorBody(refused.code, refused.message))
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}

/** SM_ERR_WEB_REQUEST_REFUSED with the 4xx status someone else chose. */
function refusedWith(status: number, reason: string, cause?: unknown): SmError {
  const params = { status, reason }
  const plain = new SmError('SM_ERR_WEB_REQUEST_REFUSED', params)
  return new SmError('SM_ERR_WEB_REQUEST_REFUSED', params, {
    cause,
    wire: { code: plain.code, message: plain.message, status, exitCode: plain.exitCode, params },
  })
}

function asSmError(thrown: unknown, ctx: Context): SmError {
  if (thrown instanceof SmError) return thrown
  // Koa's own errors (ctx.throw, koa-send's 403 and 404, a malformed URL's 400) carry a status.
  const status = (thrown as { status?: unknown })?.status
  if (status === 404) return new SmError('SM_ERR_WEB_NOT_FOUND', { method: ctx.method, path: ctx.path })
  if (typeof status === 'number' && status >= 400 && status < 500)
    return refusedWith(status, String((thrown as Error).message || 'refused'), thrown)
  return toSmError(thrown)
}

export function wantsHtml(ctx: Context): boolean {
  return !ctx.path.startsWith('/api/') && ctx.accepts('json', 'html') === 'html'
}

/**
 * Koa's last resort (an error after the middleware returned, such as a body that cannot be sent),
 * in the same coded JSON shape instead of Koa's text/plain, and logged.
 */
export function lastResort(ctx: Context, thrown: unknown, logger: Logger): void {
  if (ctx.headerSent || !ctx.writable) {
    // Nothing can be said to the client any more (most often, it went away mid-answer).
    logger.debug(`${ctx.method} ${ctx.path} ended after its answer began: ${(thrown as Error)?.message ?? thrown}`)
    return
  }
  for (const name of ctx.res.getHeaderNames()) ctx.res.removeHeader(name)
  const error = toSmError(thrown)
  const message = error.status >= 500 ? internalMessage(ctx, error, thrown, logger) : error.webMessage
  const body = JSON.stringify(errorBody(error.code, message))
  ctx.res.statusCode = error.status
  ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8')
  ctx.res.setHeader('Content-Length', Buffer.byteLength(body))
  ctx.res.setHeader('X-Content-Type-Options', 'nosniff')
  if (!ctx.req.complete) ctx.res.setHeader('Connection', 'close')
  ctx.res.end(body)
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

function errorPage(status: number, message: string, code: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${status} · server-manager</title><link rel="stylesheet" href="/static/css/app.css"></head><body class="error-page"><main class="narrow"><div class="card"><h1>${status}</h1><p>${escapeHtml(message)}</p><p class="muted"><code>${escapeHtml(code)}</code></p><p><a class="button" href="/">Back to the dashboard</a></p></div></main></body></html>`
}
