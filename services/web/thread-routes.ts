import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { isAbsolute, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import Router from '@koa/router'
import Koa from 'koa'
import compose from 'koa-compose'
import { z } from 'zod'
import { SmError } from '../../kernel/errors'
import { type PageData, ROUTE_SCHEMAS, type RouteRunner, type RouterDescription, type RouteSpecData } from './contract'
import { guardUndeclared, routesOf } from './plugin-layer'
import { APP_VIEWS, Renderers, viewName } from './render'
import { type RouteSpec, specOf, type WebState } from './route'

/**
 * The web server's part in a plugin's thread (docs/architecture.md, "Plugins in threads"): it
 * describes the plugin's routers to the manager, and runs the requests the manager hands over
 * through them, in a Koa context of its own (the caller, the body and the files as the manager
 * read them), with `ctx.render` drawing the plugin's EJS pages in the base layout.
 */

/** The plugin's routers as plain data: prefix, routes, who may call each, their specs' JSON Schemas. */
export function describeRouters(plugin: string, routers: readonly unknown[]): RouterDescription[] {
  return routers.map((router, i) => {
    if (!(router instanceof Router))
      throw new SmError('SM_ERR_WEB_BAD_CONTRIBUTION', {
        plugin,
        what: `router (getRouters()[${i}])`,
        reason: "it is not a Router from 'server-manager/web' (@koa/router)",
      })
    const byLayer = new Map<unknown, RouterDescription['routes'][number]>()
    const prefix = router.opts.prefix ?? ''
    for (const route of routesOf(plugin, router, 'user')) {
      const known = byLayer.get(route.layer)
      if (known) {
        ;(known.methods as string[]).push(route.method)
        continue
      }
      const spec = specOf(route.layer)
      byLayer.set(route.layer, {
        // Relative to the prefix, as registered: the manager's router adds the prefix again.
        path: prefix && route.path.startsWith(prefix) ? route.path.slice(prefix.length) || '/' : route.path,
        methods: [route.method],
        access: route.access,
        ...(route.layer.name ? { name: route.layer.name } : {}),
        ...(spec ? { spec: jsonSpec(spec) } : {}),
      })
    }
    return {
      prefix,
      sensitive: router.opts.sensitive === true,
      strict: router.opts.strict === true,
      routes: [...byLayer.values()],
    }
  })
}

/** A spec as data: its zod schemas as JSON Schemas (one that has none, a transform, is left out). */
function jsonSpec(spec: RouteSpec): RouteSpecData {
  const { params: _p, query: _q, body: _b, response: _r, ...rest } = spec
  const out: { -readonly [K in keyof RouteSpecData]: RouteSpecData[K] } = rest
  for (const key of ROUTE_SCHEMAS) {
    const schema = spec[key]
    if (!schema) continue
    try {
      out[key] = z.toJSONSchema(schema, { io: key === 'response' ? 'output' : 'input', unrepresentable: 'any' })
    } catch {
      // A schema JSON Schema cannot say (a transform): the route still runs in its thread, which
      // checks it there; only the API document goes without it.
    }
  }
  return out
}

/**
 * The plugin's routers as one Koa middleware chain in this thread. `templatePaths` are its
 * extension method's values (relative ones from `root`).
 */
export function routeRunner(
  plugin: string,
  routers: readonly unknown[],
  options: { root: string; templatePaths: readonly unknown[]; cacheTemplates: boolean },
): RouteRunner {
  const app = new Koa<WebState>()
  const dirs = options.templatePaths.map((dir) =>
    isAbsolute(String(dir)) ? String(dir) : resolve(options.root, String(dir)),
  )
  const renderers = new Renderers(APP_VIEWS, options.cacheTemplates)
  if (dirs.length > 0) renderers.setPlugin(plugin, dirs)
  const pages = new WeakMap<object, () => Promise<PageData>>()
  Object.defineProperty(app.context, 'render', {
    async value(this: Koa.ParameterizedContext<WebState>, view: string, locals: Record<string, unknown> = {}) {
      const page = await (pages.get(this) as () => Promise<PageData>)()
      const { mounts, templates, ...data } = page
      // A page of another plugin (`other:view`), drawn here from its folders as the manager has them now.
      const { namespace } = viewName(view, plugin)
      if (namespace !== plugin && namespace !== 'app')
        renderers.adopt(namespace, Object.hasOwn(templates, namespace) ? templates[namespace] : undefined)
      const urlFor = (name: string, path = '') => {
        const at = mounts[name]
        if (at === undefined) throw new SmError('SM_ERR_WEB_STATIC_MOUNT_UNKNOWN', { name })
        const tail = String(path).split('/').filter(Boolean).map(encodeURIComponent).join('/')
        return tail ? `${at}/${tail}` : at
      }
      const all = { title: '', head_styles: '', body_scripts: '', ...locals, ...data, urlFor }
      const html = await renderers.render(this, view, all, plugin)
      this.type = 'html'
      this.body = html
      return html
    },
  })
  // Here as in the manager's thread: a route that says nothing about who may call it needs a user
  // (the manager checked the matched route; a route the request reaches by next() is checked here).
  // (describeRouters refused anything that is not a Router before the thread ran a request.)
  for (const router of routers.filter((router) => router instanceof Router)) {
    guardUndeclared(router)
    app.use(router.routes())
  }
  // Koa's own chain, without its response handling: the answer is read from the context below.
  const chain = compose(app.middleware)
  return async (request, page) => {
    // No connection: what Koa reads of one (the caller's address, whether it was TLS).
    const req = new IncomingMessage(detachedSocket(request.ip, request.secure))
    req.method = request.method
    req.url = request.url
    req.headers = { ...request.headers }
    req.push(null)
    const res = new ServerResponse(req)
    // As Koa's own request handler does: nothing answered yet is a 404 (the manager then goes on).
    res.statusCode = 404
    const ctx = app.createContext<WebState>(req, res)
    pages.set(ctx, page)
    ctx.state.plugin = plugin
    if (request.user) ctx.state.user = request.user
    if (request.authError) ctx.state.authError = SmError.fromWire(request.authError)
    ;(ctx.request as { body?: unknown }).body = request.body
    ;(ctx.request as { files?: unknown }).files = request.files
    await chain(ctx)
    const headers = res.getHeaders() as Record<string, string | string[] | number>
    const response = { status: ctx.status, headers }
    // A route that passed the request on (or none that matched): the manager goes on past the plugin.
    if (ctx.status === 404 && ctx.body === undefined) return { response: { ...response, unmatched: true } }
    const body = ctx.body as unknown
    if (request.method === 'HEAD') (body as Readable | undefined)?.destroy?.()
    if (body === null || body === undefined || request.method === 'HEAD') return { response }
    if (typeof (body as Readable).pipe === 'function')
      return { response: { ...response, streamed: true }, stream: body as Readable }
    // Text as text; bytes copied out of Node's shared pool (a view of it would clone all 8 KiB).
    if (typeof body === 'string') return { response: { ...response, body } }
    if (Buffer.isBuffer(body)) return { response: { ...response, body: new Uint8Array(body) } }
    return { response: { ...response, body: JSON.stringify(body) } }
  }
}

/**
 * A socket not connected to anything, standing for the manager's connection in this thread: what
 * Koa reads of it is the caller's address (`ctx.ip`) and whether it was TLS (`ctx.protocol`).
 */
function detachedSocket(remoteAddress: string, encrypted: boolean): Socket {
  const socket = new Socket({ readable: false, writable: false })
  Object.defineProperty(socket, 'remoteAddress', { value: remoteAddress })
  Object.defineProperty(socket, 'encrypted', { value: encrypted })
  return socket
}
