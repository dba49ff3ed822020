import Router, { type Layer } from '@koa/router'
import type { Middleware } from 'koa'
import { z } from 'zod'
import { type PageData, ROUTE_SCHEMAS, type RouterDescription, type RouteSpecData, type ThreadRoutes } from './contract'
import { attachSpec, guardsFor, type RouteSpec, uploadedFiles, type WebContext, type WebState } from './route'

/**
 * The manager's side of a plugin router in the plugin's thread (docs/architecture.md, "Plugins in
 * threads"): a router of the same prefix and routes, each behind its own access guard (so the
 * caller is checked, and the body read, here), whose handler hands the request to the thread and
 * sends its answer on, streamed when the plugin streams it.
 */
export function proxyRouter(
  described: RouterDescription,
  thread: ThreadRoutes,
  page: (ctx: WebContext) => Promise<PageData>,
): Router {
  const router = new Router<WebState>({
    ...(described.prefix ? { prefix: described.prefix } : {}),
    sensitive: described.sensitive,
    strict: described.strict,
  })
  const forward: Middleware<WebState> = async (ctx, next) => {
    const web = ctx as WebContext
    // The plugin's thread ran this request through all its routers' matching routes and none
    // answered: its further routes here (of any of its routers) pass it on without running it again.
    const state = web.state as { passedOn?: Set<ThreadRoutes> }
    if (state.passedOn?.has(thread)) return next()
    const { user, authError } = web.state
    const { response, stream } = await thread.forward(
      {
        method: web.method,
        url: web.url,
        headers: web.headers,
        body: (web.request as { body?: unknown }).body,
        files: uploadedFiles(web),
        ...(user ? { user: { ...user } } : {}),
        ...(authError ? { authError: authError.toWire() } : {}),
        ip: web.ip,
        secure: web.secure,
      },
      () => page(web),
    )
    if (response.unmatched) {
      state.passedOn = new Set(state.passedOn).add(thread)
      return next()
    }
    web.status = response.status
    for (const [name, value] of Object.entries(response.headers))
      if (name !== 'content-length') web.set(name, value as string | string[])
    const { body } = response
    if (typeof body === 'string') web.body = body
    else if (body) web.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    else if (stream) web.body = stream
  }
  for (const route of described.routes) {
    const spec = route.spec ? specFromData(route.spec) : undefined
    const layer = router.register(
      route.path,
      [...route.methods],
      [
        ...guardsFor({
          access: route.access,
          session: spec?.session === true,
          // The whole path, its router's prefix too: a prefix may name the server (`/x/servers/:name`).
          path: `${described.prefix ?? ''}${route.path}`,
          right: spec?.right,
          serverParam: spec?.serverParam,
        }),
        forward,
      ],
      {
        name: route.name ?? null,
      },
    ) as Layer
    if (spec) attachSpec(layer, spec)
  }
  return router
}

/** A described spec with zod schemas again (from its JSON Schemas), for the API document. */
function specFromData(data: RouteSpecData): RouteSpec {
  const { params: _p, query: _q, body: _b, response: _r, ...rest } = data
  const spec: { -readonly [K in keyof RouteSpec]: RouteSpec[K] } = rest
  for (const key of ROUTE_SCHEMAS) {
    const json = data[key]
    if (json === undefined) continue
    try {
      spec[key] = z.fromJSONSchema(json)
    } catch {
      // One zod cannot read back: the plugin's thread checks the request itself; only the API
      // document goes without the schema.
    }
  }
  return spec
}
