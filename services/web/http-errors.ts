import type { Context } from 'koa'
import { type Logger, SmError, toSmError } from '../../kernel'

/**
 * Turns anything a route threw into the JSON error body every client gets:
 * `{status: 'error', code, message, detail}` (`detail` is the original's FastAPI field), with
 * the status of the error's code, `WWW-Authenticate` on a 401 and `issues` on a 422. A browser
 * asking for a page it may not see is sent to the sign-in page instead. A 5xx is logged with
 * its cause and its message kept generic.
 */
export function writeError(ctx: Context, thrown: unknown, logger: Logger): void {
  const error = asSmError(thrown, ctx)
  if (error.status === 401 && ctx.method === 'GET' && wantsHtml(ctx)) {
    ctx.redirect(`/login?next=${encodeURIComponent(ctx.originalUrl)}`)
    return
  }
  if (error.status >= 500) logger.error(`${ctx.method} ${ctx.path} failed: ${error.message}`, { error: thrown })
  ctx.status = error.status
  if (error.status === 401) ctx.set('WWW-Authenticate', 'Bearer')
  if (error.code === 'SM_ERR_AUTH_RATE_LIMITED')
    ctx.set('Retry-After', String((error.params as { seconds: number }).seconds))
  const issues = (error.params as { issues?: unknown } | undefined)?.issues
  const body = {
    status: 'error',
    code: error.code,
    message: error.message,
    detail: error.message,
    ...(issues ? { issues } : {}),
  }
  if (wantsHtml(ctx) && ctx.method === 'GET') {
    ctx.type = 'html'
    ctx.body = errorPage(error)
  } else ctx.body = body
}

function asSmError(thrown: unknown, ctx: Context): SmError {
  if (thrown instanceof SmError) return thrown
  // Koa's own errors (ctx.throw, koa-send's 403 and 404, a malformed URL's 400) carry a status.
  const status = (thrown as { status?: unknown })?.status
  if (status === 404) return new SmError('SM_ERR_WEB_NOT_FOUND', { method: ctx.method, path: ctx.path })
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const params = { status, reason: String((thrown as Error).message || 'refused') }
    const plain = new SmError('SM_ERR_WEB_REQUEST_REFUSED', params)
    return new SmError('SM_ERR_WEB_REQUEST_REFUSED', params, {
      cause: thrown,
      wire: { code: plain.code, message: plain.message, status, exitCode: plain.exitCode, params },
    })
  }
  return toSmError(thrown)
}

export function wantsHtml(ctx: Context): boolean {
  return !ctx.path.startsWith('/api/') && ctx.accepts('json', 'html') === 'html'
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

function errorPage(error: SmError): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${error.status} · server-manager</title><link rel="stylesheet" href="/static/css/app.css"></head><body class="error-page"><main class="narrow"><div class="card"><h1>${error.status}</h1><p>${escapeHtml(error.message)}</p><p class="muted"><code>${escapeHtml(error.code)}</code></p><p><a class="button" href="/">Back to the dashboard</a></p></div></main></body></html>`
}
