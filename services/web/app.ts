import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import type Router from '@koa/router'
import Koa, { type Middleware } from 'koa'
import compose from 'koa-compose'
import mount from 'koa-mount'
import { type BusScope, type Logger, runInContext, SmError } from '../../kernel'
import { BoundedMap } from '../../lib/bounded-map'
import { PACKAGE_ROOT } from '../../lib/package-root'
import { type Identity, roleAtLeast } from '../auth/contract'
import { onAuthChange } from './auth-changes'
import type { PageData } from './contract'
import { EventStream } from './event-stream'
import { keepProxyEntries } from './forwarded'
import { HostCheck } from './host-check'
import { clientErrorResponse, lastResort, writeError } from './http-errors'
import { parseMultipart, type UploadLimits } from './multipart'
import { openApiDocument, SETUP_EXEMPT } from './openapi'
import { type KnownRoute, PluginLayer, routesOf, type StaticMount } from './plugin-layer'
import { APP_VIEWS, Renderers } from './render'
import { checkJsonDepth, deferBody, releaseBody } from './request-body'
import { hasBody, isWrite, specOf, type WebState } from './route'
import { reachRole } from './server-access'
import { serveStatic as serve } from './static-files'

export const APP_PUBLIC = join(PACKAGE_ROOT, 'services', 'web', 'public')
export const SWAGGER_DIST = dirname(require.resolve('swagger-ui-dist/package.json'))
const PICO_CSS = join(dirname(require.resolve('@picocss/pico/package.json')), 'css')
/** uPlot's built files (the charts: public/js/charts.js), served from here like Pico. */
const UPLOT_DIST = join(dirname(require.resolve('uplot/package.json')), 'dist')

/** What `ctx.is('multipart/form-data')` answers, without parsing the media type on every write. */
const MULTIPART = /^\s*multipart\/form-data\s*(;|$)/i
export const SESSION_COOKIE = 'access_token_cookie'
export const CSRF_COOKIE = 'sm_csrf'

export interface WebAppOptions {
  readonly bus: BusScope
  readonly logger: Logger
  readonly version: string
  readonly maxBodyKb: number
  readonly trustProxy: boolean
  /** Cache compiled templates (off while developing templates: SM_WEB_DEV=1). */
  readonly cacheTemplates: boolean
}

/** The parts of the app the core routes use. */
export interface WebApp {
  readonly bus: BusScope
  readonly logger: Logger
  readonly version: string
  readonly layer: PluginLayer
  readonly stream: EventStream
  readonly renderers: Renderers
  readonly startedAt: number
  /** Every route, core and plugins, with who may call it. */
  routes(): KnownRoute[]
  urlFor(name: string, path?: string): string
  openApi(): object
  setupNeeded(): Promise<boolean>
  /** Where the server listens (after listen). */
  url(): string | undefined
}

/**
 * The Koa application: errors as JSON, security headers, first-run setup redirect, the caller's
 * identity (bearer header or session cookie, CSRF-checked on cookie writes), bodies parsed with
 * a size limit, then the core routers, the live plugin layer, and static files.
 */
export class WebServer implements WebApp {
  readonly bus: BusScope
  readonly logger: Logger
  readonly version: string
  readonly koa = new Koa<WebState>()
  readonly core: Router[] = []
  readonly layer: PluginLayer
  readonly renderers: Renderers
  readonly stream: EventStream
  readonly startedAt = Date.now()
  readonly #coreMounts: StaticMount[] = [
    { urlPath: '/static', dir: APP_PUBLIC, name: 'app', owner: 'core' },
    { urlPath: '/docs', dir: SWAGGER_DIST, name: 'docs', owner: 'core' },
    { urlPath: '/static/vendor/pico', dir: PICO_CSS, name: 'pico', owner: 'core' },
    { urlPath: '/static/vendor/uplot', dir: UPLOT_DIST, name: 'uplot', owner: 'core' },
  ]
  /** Which names the manager answers to, and whether a write comes from its own pages. */
  readonly hosts = new HostCheck()
  #server: Server | undefined
  /** Nothing is served before every service is up (`ready`), nor once the manager is stopping. */
  #state: 'starting' | 'serving' | 'stopping' = 'starting'
  #openApi: object | undefined
  #setupDone = false
  readonly #identities = new BoundedMap<string, Identity>(10_000)
  /** Bumped whenever users or tokens change, so an answer computed before the change is not kept. */
  #generation = 0

  constructor(options: WebAppOptions) {
    this.bus = options.bus
    this.logger = options.logger
    this.version = options.version
    this.renderers = new Renderers(APP_VIEWS, options.cacheTemplates)
    this.stream = new EventStream(options.bus)
    this.layer = new PluginLayer(
      () => ({ routers: this.core, mounts: this.#coreMounts }),
      (plugin, dirs) => {
        this.renderers.setPlugin(plugin, dirs)
        this.#openApi = undefined
      },
      async (ctx) => {
        const { user, reach, csrf, path, version, pluginPages } = await this.pageLocals(ctx, {})
        const mounts = Object.fromEntries([...this.#coreMounts, ...this.layer.mounts()].map((m) => [m.name, m.urlPath]))
        const templates = this.layer.templateFolders()
        return {
          ...(user ? { user: { ...user }, reach } : {}),
          csrf,
          path,
          version,
          pluginPages,
          mounts,
          templates,
        } satisfies PageData
      },
    )
    const forget = () => {
      this.#identities.clear()
      this.#generation++
    }
    onAuthChange(options.bus, forget)
    // ctx.render, once on Koa's context prototype rather than a closure per request.
    const server = this
    Object.defineProperty(this.koa.context, 'render', {
      value(this: Koa.ParameterizedContext<WebState>, view: string, locals: Record<string, unknown> = {}) {
        return server.#renderPage(this, view, locals)
      },
    })
    this.koa.proxy = options.trustProxy
    // Behind a proxy, the client is the address the proxy appended to X-Forwarded-For (the right-most):
    // what is left of it was sent by the client, who would pick its own address for the sign-in limit.
    // The host and scheme likewise (keepProxyEntries, in listen).
    this.koa.maxIpsCount = 1
    this.koa.silent = true
    // What escapes the middleware (a body that cannot be sent) is answered as coded JSON too, and logged.
    const logger = options.logger
    Object.defineProperty(this.koa.context, 'onerror', {
      value(this: Koa.Context, error: unknown) {
        if (error != null) lastResort(this, error, logger)
      },
    })
    // The body parser is loaded with the first body to read, not with the web service: it brings
    // co-body, qs and their helpers (about 100 ms of loading), which a manager that only serves
    // pages, streams and the bridge never needs.
    let parser: Middleware<WebState> | undefined
    const parseBody: Middleware<WebState> = (ctx, next) => {
      parser ??= (require('@koa/bodyparser') as typeof import('@koa/bodyparser')).bodyParser({
        enableTypes: ['json', 'form'],
        jsonLimit: `${options.maxBodyKb}kb`,
        formLimit: `${options.maxBodyKb}kb`,
        onError: (error) => {
          const status = (error as { status?: number }).status
          if (status === 413) throw new SmError('SM_ERR_WEB_BODY_TOO_LARGE', { limitKb: options.maxBodyKb })
          throw new SmError('SM_ERR_WEB_BAD_JSON', { reason: firstLine((error as Error).message) })
        },
      }) as Middleware<WebState>
      return parser(ctx, next)
    }
    // Read per upload (uploads are rare), so a change of web.max_upload_mb applies at once.
    const uploads = async (): Promise<UploadLimits> => ({
      maxBytes: Number((await options.bus.request('settings:get', { key: 'web.max_upload_mb' })).value) * 1048576,
      maxFieldBytes: options.maxBodyKb * 1024,
    })
    this.koa.use(this.#front(parseBody, options.maxBodyKb, uploads))
  }

  /** Adds the core routers, then the plugin layer and static files; call once, after the core routes are defined. */
  seal(): void {
    this.koa.use(coreDispatch(this.core))
    this.koa.use(this.layer.middleware())
    this.koa.use(mount('/static/vendor/pico', serve(PICO_CSS, { index: false, maxage: 86_400_000 })))
    this.koa.use(mount('/static/vendor/uplot', serve(UPLOT_DIST, { index: false, maxage: 86_400_000 })))
    this.koa.use(mount('/static', serve(APP_PUBLIC, { index: false, maxage: 3_600_000 })))
    this.koa.use(mount('/docs', serve(SWAGGER_DIST, { index: false })))
    this.koa.use((ctx) => {
      throw new SmError('SM_ERR_WEB_NOT_FOUND', { method: ctx.method, path: ctx.path })
    })
  }

  routes(): KnownRoute[] {
    return [...this.core.flatMap((router) => routesOf('core', router, 'user')), ...this.layer.routes()]
  }

  urlFor(name: string, path = ''): string {
    const m = [...this.#coreMounts, ...this.layer.mounts()].find((mount) => mount.name === name)
    if (!m) throw new SmError('SM_ERR_WEB_STATIC_MOUNT_UNKNOWN', { name })
    const tail = String(path).split('/').filter(Boolean).map(encodeURIComponent).join('/')
    return tail ? `${m.urlPath}/${tail}` : m.urlPath
  }

  openApi(): object {
    this.#openApi ??= openApiDocument(this.routes(), { version: this.version })
    return this.#openApi
  }

  async setupNeeded(): Promise<boolean> {
    if (this.#setupDone) return false
    const needed = await this.bus.request('auth:setup_needed', {})
    this.#setupDone = !needed
    return needed
  }

  url(): string | undefined {
    const address = this.#server?.address() as AddressInfo | null | undefined
    if (!address) return undefined
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
    return `http://${host}:${address.port}`
  }

  /** Every service and plugin is up: requests are answered from now on. */
  open(): void {
    if (this.#state === 'starting') this.#state = 'serving'
  }

  /** The manager is stopping: requests are answered 503 from now on, while the services go down. */
  closing(): void {
    this.#state = 'stopping'
  }

  async listen(host: string, port: number): Promise<string> {
    const koaHandle = this.koa.callback()
    const handle = this.koa.proxy
      ? (req: IncomingMessage, res: ServerResponse) => {
          keepProxyEntries(req)
          return koaHandle(req, res)
        }
      : koaHandle
    const server = createServer(handle)
    // A client that asks before sending its body (Expect: 100-continue, as curl does for large
    // uploads) is told to go on only when the body is read (`readBody`): a refused upload is never sent.
    server.on('checkContinue', handle)
    // A request the parser cannot read gets the coded JSON shape too (Node's own 400 has no body).
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
      if (error.code === 'ECONNRESET' || !socket.writable || answering) socket.destroy()
      else socket.end(clientErrorResponse(error))
    })
    // Slow clients cannot hold sockets forever; event streams opt out per request.
    server.requestTimeout = 60_000
    server.headersTimeout = 20_000
    server.keepAliveTimeout = 5_000
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new SmError(
            'SM_ERR_WEB_LISTEN_FAILED',
            { host, port, reason: error.code ?? error.message },
            { cause: error },
          ),
        ),
      )
      server.listen(port, host, () => resolve())
    })
    this.#server = server
    return this.url() ?? `http://${host}:${port}`
  }

  /** Stops accepting, ends event streams, lets in-flight requests finish (at most `graceMs`), then closes. */
  async close(graceMs = 10_000): Promise<void> {
    const server = this.#server
    if (!server) return
    this.#server = undefined
    this.stream.closeAll()
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    const timer = setTimeout(() => server.closeAllConnections(), graceMs)
    await closed
    clearTimeout(timer)
  }

  /**
   * Everything before the routes, in one middleware (each async layer costs every request):
   * security headers; errors as JSON (or a page); 503 until every service is up; the Host (and a
   * write's Origin) checked against the manager's own names; the caller's identity from the bearer
   * header or the session cookie (a cookie write needs the CSRF header); the first-run redirect to
   * setup; then the routes, as `http:<user>`. The body is only read once a route has matched and
   * its guard has passed (`readBody` in the guard), so nothing is read or written to disk for a
   * request that is refused; a JSON answer is serialised here, so one that cannot be is a coded 500.
   */
  #front(
    parseBody: Middleware<WebState>,
    maxBodyKb: number,
    uploads: () => Promise<UploadLimits>,
  ): Middleware<WebState> {
    const noop = async () => {}
    const goOn = (ctx: Koa.ParameterizedContext<WebState>) => {
      if (/100-continue/i.test(ctx.get('expect')) && !ctx.res.headersSent) ctx.res.writeContinue()
    }
    const readJson = async (ctx: Koa.ParameterizedContext<WebState>) => {
      if (Number(ctx.get('content-length')) > maxBodyKb * 1024)
        throw new SmError('SM_ERR_WEB_BODY_TOO_LARGE', { limitKb: maxBodyKb })
      goOn(ctx)
      await parseBody(ctx, noop)
      // The parser leaves no body when the client went away first: the route must not run without it.
      if (ctx.request.body === undefined)
        throw new SmError('SM_ERR_WEB_BAD_JSON', { reason: 'the request was closed before its body was read' })
      checkJsonDepth(ctx.request.body, (ctx.request as { rawBody?: string }).rawBody?.length ?? 0)
      return undefined
    }
    return async (ctx, next) => {
      ctx.set('X-Content-Type-Options', 'nosniff')
      try {
        if (this.#state !== 'serving') throw new SmError('SM_ERR_WEB_UNAVAILABLE', { state: this.#state })
        const refused = this.hosts.hostRefusal(ctx.host)
        if (refused) throw refused
        const origin = isWrite(ctx.method) ? ctx.get('origin') : ''
        if (origin) {
          // Not ctx.origin: in Koa 3 that is the Origin header itself.
          const foreign = this.hosts.originRefusal(origin, `${ctx.protocol}://${ctx.host}`)
          if (foreign) throw foreign
        }
        // Known tokens are answered without waiting (most requests); new ones ask the auth service.
        const identifying = this.#identify(ctx)
        if (identifying) await identifying
        if (ctx.state.user?.enrolOnly && !ENROL_EXEMPT.test(ctx.path)) {
          // An admin who must enrol a second factor first: its pages lead to the enrolment.
          if (ctx.method === 'GET' && !/^\/api(\/|$)/.test(ctx.path)) return ctx.redirect('/users#two-factor')
          throw new SmError('SM_ERR_AUTH_TWO_FACTOR_REQUIRED', {})
        }
        if (ctx.method === 'GET' && !this.#setupDone && !SETUP_EXEMPT.test(ctx.path) && (await this.setupNeeded())) {
          ctx.redirect('/setup')
          return
        }
        if (hasBody(ctx.method))
          deferBody(
            ctx,
            MULTIPART.test(ctx.get('content-type'))
              ? async () => parseMultipart(ctx, await uploads(), () => goOn(ctx))
              : () => readJson(ctx),
          )
        const actor = ctx.state.user ? `http:${ctx.state.user.username}` : 'http:anonymous'
        try {
          await runInContext({ actor }, next)
        } finally {
          // Uploaded files live for the request: the route moves or copies what it keeps.
          releaseBody(ctx)
        }
        serialiseJson(ctx)
      } catch (error) {
        writeError(ctx, error, this.logger)
      }
      // What the API answers is the caller's own (sessions, secrets shown once, files): never kept by a cache.
      if (/^\/(api|auth)\//.test(ctx.path) && !ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store')
      // Pages load nothing from outside the machine: scripts, styles, images and connections stay on this origin.
      if (ctx.response.type === 'text/html') {
        ctx.set('Content-Security-Policy', CSP)
        ctx.set('X-Frame-Options', 'SAMEORIGIN')
        ctx.set('Referrer-Policy', 'same-origin')
      }
      // An answer given before its body was read (a refusal, a route that ignores it) ends the connection, so the rest is never read.
      if (!ctx.req.complete && !ctx.headerSent) ctx.set('Connection', 'close')
    }
  }

  /** Sets the caller (or why its token was refused); a promise only when the auth service must be asked. */
  #identify(ctx: Koa.ParameterizedContext<WebState>): Promise<void> | undefined {
    const header = ctx.get('authorization')
    const { token, cookie } = presentedToken(ctx)
    if (!token) {
      if (header)
        ctx.state.authError = new SmError('SM_ERR_AUTH_TOKEN_INVALID', {
          reason: 'the Authorization header is not "Bearer <token>"',
        })
      return undefined
    }
    const accept = (user: Identity) => {
      // A write authenticated by the browser's cookie must prove it comes from our pages.
      if (cookie && isWrite(ctx.method) && (!user.csrf || ctx.get('x-csrf-token') !== user.csrf))
        ctx.state.authError = new SmError('SM_ERR_AUTH_CSRF', {})
      else ctx.state.user = user
    }
    const known = this.#identities.get(token)
    if (known && (known.expiresAt === undefined || known.expiresAt > Date.now())) {
      accept(known)
      return undefined
    }
    return this.#ask(token).then(accept, (error: unknown) => {
      if (!(error instanceof SmError) || error.status !== 401) throw error
      ctx.state.authError = error
      if (cookie) ctx.cookies.set(SESSION_COOKIE, null)
    })
  }

  /**
   * Who a token is, asked of the auth service and remembered until the token expires or
   * any user or token fact is recorded (a role change, a password reset, a revocation, from this
   * process or another), so a request does not cost a round trip to the auth service.
   */
  async #ask(token: string): Promise<Identity> {
    const generation = this.#generation
    const user = await this.bus.request('auth:verify', { token })
    if (generation === this.#generation) {
      this.#identities.set(token, user)
    }
    return user
  }

  async #renderPage(ctx: Koa.ParameterizedContext<WebState>, view: string, locals: Record<string, unknown>) {
    const html = await this.renderers.render(
      ctx,
      view,
      await this.pageLocals(ctx, locals),
      ctx.state.plugin as string | undefined,
    )
    ctx.type = 'html'
    ctx.body = html
    return html
  }

  /** What every template sees: the user, the CSRF value, `urlFor`, the sidebar's plugin pages. */
  async pageLocals(
    ctx: { state: WebState; path: string; cookies: Koa.Context['cookies'] },
    locals: Record<string, unknown>,
  ) {
    const user = ctx.state.user
    // What names no server is offered as far as the user's reach goes (held to grants: a user's).
    const reach = user ? reachRole(user) : undefined
    const pages = reach ? pluginPages(this.layer.routes(), reach) : []
    return {
      title: '',
      head_styles: '',
      body_scripts: '',
      ...locals,
      user,
      reach,
      csrf: user?.csrf ?? '',
      path: ctx.path,
      version: this.version,
      pluginPages: pages,
      urlFor: (name: string, path?: string) => this.urlFor(name, path),
    }
  }
}

/** What an admin who must enrol a second factor first may still open: signing in and out, the enrolment, its page and what pages load. */
const ENROL_EXEMPT = /^\/(auth\/|api\/account\/two-factor(\/|$)|users$|static\/|favicon\.ico$)/

/** The token a request presents: the bearer header's, else the session cookie's (`cookie` then). */
export function presentedToken(ctx: { get(field: string): string; cookies: Koa.Context['cookies'] }): {
  token: string | undefined
  cookie: string | undefined
} {
  const header = ctx.get('authorization')
  const bearer = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined
  const cookie = bearer ? undefined : ctx.cookies.get(SESSION_COOKIE)
  return { token: bearer ?? cookie, cookie }
}

/**
 * The plugin pages a role may open, for the sidebar and /api/plugins/pages: native pages (GET
 * routes tagged `plugin-ui-native`: a tree of components the UI draws at /plugin-page) and EJS
 * pages (GET routes tagged `plugin-ui-page`, with no path parameter: opened at their own path).
 */
export function pluginPages(routes: readonly KnownRoute[], role: Identity['role'] | undefined) {
  return routes
    .filter((route) => route.owner !== 'core' && route.method === 'GET')
    .filter((route) => route.access === 'public' || (role !== undefined && roleAtLeast(role, route.access)))
    .flatMap((route) => {
      const spec = specOf(route.layer)
      const tags = spec?.tags ?? []
      const type = tags.includes('plugin-ui-native')
        ? ('native' as const)
        : tags.includes('plugin-ui-page') && !route.path.includes(':')
          ? ('page' as const)
          : undefined
      if (!type) return []
      return [
        {
          name: spec?.summary ?? spec?.name ?? route.layer.name ?? route.path,
          path: route.path,
          type,
          plugin: route.owner,
        },
      ]
    })
}

/**
 * The core routers, each asked only for the paths it can have (its literal paths, and the
 * literal start of its paths with parameters), so a request is matched against a handful of
 * routes rather than every core route, and a plugin route against none.
 */
function coreDispatch(routers: readonly Router[]): Middleware<WebState> {
  const trim = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)
  const byPath = routers.map((router) => {
    const exact = new Set<string>()
    const prefixes = new Set<string>()
    for (const layer of router.stack) {
      const path = String(layer.path)
      const cut = path.search(/[:(*]/)
      if (cut < 0) exact.add(trim(path))
      else prefixes.add(path.slice(0, cut))
    }
    return { exact, prefixes: [...prefixes], dispatch: router.routes() as Middleware<WebState> }
  })
  // Several routers may have a path (an area's hand-written routes and those derived from its
  // commands' doors): their composition is made once per set of routers, not per request.
  const composed = new Map<string, Middleware<WebState>>()
  return (ctx, next) => {
    const path = ctx.path
    const key = trim(path)
    const candidates = byPath.filter((r) => r.exact.has(key) || r.prefixes.some((prefix) => path.startsWith(prefix)))
    if (candidates.length === 0) return next()
    if (candidates.length === 1) return (candidates[0] as (typeof byPath)[number]).dispatch(ctx, next)
    const set = candidates.map((c) => byPath.indexOf(c)).join(',')
    let dispatch = composed.get(set)
    if (!dispatch) {
      dispatch = compose(candidates.map((c) => c.dispatch))
      composed.set(set, dispatch)
    }
    return dispatch(ctx, next)
  }
}

/**
 * Turns a JSON answer into its text here rather than in Koa's respond, where a failure (a value
 * nested too deep, a cycle) would be answered as text/plain outside every handler.
 */
function serialiseJson(ctx: Koa.Context): void {
  const body = ctx.body
  if (body === null || typeof body !== 'object') return
  const proto = Object.getPrototypeOf(body)
  if (Array.isArray(body) || proto === Object.prototype || proto === null) {
    // The content type set with the object stays (a string body does not change it).
    ctx.body = JSON.stringify(body)
  }
}

const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'self'; base-uri 'self'; form-action 'self'"

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text
}
