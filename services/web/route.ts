import { mkdirSync, renameSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type {} from '@koa/bodyparser'
import Router, { type Layer, type RouterContext } from '@koa/router'
import type { Middleware } from 'koa'
import { parse, type Token } from 'path-to-regexp'
import { z } from 'zod'
import { SmError } from '../../kernel/errors'
import { heldToGrants, type Identity, type Role, roleAtLeast, type ServerRight, seesServer } from '../auth/contract'
import type { UploadedFile } from './multipart'
import { readBody } from './request-body'

/** Methods that change something: the same-origin and CSRF checks apply to them (any case). */
export const isWrite = (method: string): boolean => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase())
/** Methods whose bodies are read (as @koa/bodyparser does by default), once the route's guard has passed. */
export const hasBody = (method: string): boolean => ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase())

export type { UploadedFile } from './multipart'

/** Who may call a route: a role (that role or higher, signed in) or `public` (anyone). */
export type Access = Role | 'public'

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** What the web server keeps on `ctx.state`. */
export interface WebState {
  /** The caller, when signed in (session or API token). */
  user?: Identity
  /** Why a presented token was not accepted (thrown by a guard if the route needs a user). */
  authError?: SmError
  /** The plugin whose route is running, if any. */
  plugin?: string
  [key: string]: unknown
}

export type WebContext = RouterContext<WebState>

declare module 'koa' {
  interface ExtendableContext {
    /** Renders a page template into the answer (defined once on Koa's context prototype, app.ts). */
    render(view: string, locals?: Record<string, unknown>): Promise<void>
  }
}

/** The files of a multipart request (`FileUpload` in native pages), by field name; deleted when the request ends. */
export function uploadedFiles(ctx: { request: object }): Readonly<Record<string, UploadedFile>> {
  return (ctx.request as { files?: Record<string, UploadedFile> }).files ?? {}
}

/**
 * The file a multipart request uploaded as `field` (requiredUpload()), moved to a folder of its
 * own under the name the client gave it (made safe), so that what reads it may go by its name (an
 * install keeps a jar's own name, and reads an archive's type from it). It stays where the
 * request's uploads are, so it goes when the request ends.
 */
export function uploadUnderItsName(ctx: { request: object }, field: string): string {
  const file = requiredUpload(ctx, field)
  const safe = basename(file.filename)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(-120)
  const name = /^\.*$/.test(safe) ? 'upload' : safe
  const dir = join(dirname(file.path), `named-${basename(file.path)}`)
  mkdirSync(dir)
  const path = join(dir, name)
  renameSync(file.path, path)
  return path
}

/**
 * The file a multipart request uploaded as `field` (a route's declared `uploads`), or a coded 422
 * (SM_ERR_WEB_VALIDATION) naming the part to send.
 */
function requiredUpload(ctx: { request: object }, field: string): UploadedFile {
  const file = uploadedFiles(ctx)[field]
  if (file) return file
  throw new SmError('SM_ERR_WEB_VALIDATION', {
    summary: `body '${field}': no file was uploaded (send multipart/form-data with a file part named ${field})`,
    issues: [{ where: 'body', path: field, message: 'a file part is required' }],
  })
}

/** One route, for core and plugins alike: it is registered, guarded, validated and documented from this. */
export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  readonly method: Method
  /** Relative to the router's prefix, in Koa's form (`/servers/:name`). */
  readonly path: string
  /** A name for the route (and the native page's sidebar label when it has no summary). */
  readonly name?: string
  readonly summary?: string
  readonly description?: string
  readonly tags?: readonly string[]
  /** Who may call it. Required: every route says who may call it. */
  readonly access: Access
  /**
   * A route on one server, named by the path parameter `serverParam` (default `name`, as in
   * `/servers/:name/...`): an account held to its server grants (issue 34) may call it when its
   * rights on that server include this one, whatever `access` says; other accounts by `access`.
   * A `/servers/:name` path without it is for accounts with every server's reach only.
   */
  readonly right?: ServerRight
  readonly serverParam?: string
  /**
   * Only a signed-in session (the JWT from sign-in, by header or cookie), never an API token:
   * account management, so that a token can never widen its own reach (a new password, a new
   * token, another token revoked).
   */
  readonly session?: boolean
  /**
   * The path parameters' schema. None: each `:name` of the path is a non-empty string of at most
   * `paramMax` characters (default 200; a record: each parameter's, 200 for one it omits).
   */
  readonly params?: P
  readonly paramMax?: number | Readonly<Record<string, number>>
  readonly query?: Q
  readonly body?: B
  /**
   * The files the route takes as `multipart/form-data` (field name → what it is), read with
   * `uploadedFiles(ctx)`; `body` then holds the form's other fields (strings). Documented as a
   * multipart body.
   */
  readonly uploads?: Readonly<Record<string, string>>
  readonly response?: R
  /** The success status (default 200; a 3xx is documented as a redirect). */
  readonly status?: number
  /** What the route answers with when it is not JSON (`text/html`, `text/event-stream`, `application/zip`). */
  readonly produces?: string
  /**
   * The error statuses the route's own work answers, each with when (`{ 404: 'No such server.' }`).
   * Those every route of its kind may answer are documented without this: 401 and 403 from its
   * access, 400 and 413 from a body, 422 from its schemas, 302 to setup or sign-in for pages,
   * 500 and 503.
   */
  readonly errors?: Readonly<Record<number, string>>
  /** When and where the route's own work redirects (302), if it may: `'to /login once setup is done'`. */
  readonly redirect?: string
}

export interface RouteInput<P, Q, B> {
  readonly params: P
  readonly query: Q
  readonly body: B
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined

/**
 * The parameters of a Koa path, each a string: `'/servers/:name/files/:file'` → `{ name, file }`
 * (none: undefined). A path with an optional group or a wildcard (`/items{/:id}`, `/*rest`) has
 * any parameter, each maybe missing.
 */
export type PathParams<S extends string> = string extends S
  ? Readonly<Record<string, string>>
  : S extends `${string}${'{' | '*'}${string}`
    ? Readonly<Record<string, string | undefined>>
    : S extends `${string}:${string}`
      ? Params<S>
      : undefined
type Params<S extends string> = S extends `${string}:${infer Rest}`
  ? { [K in NameOf<Rest>]: string } & Params<Rest>
  : unknown
/** A parameter's name: up to the first character that cannot be in one (`id.json` → `id`). */
type NameOf<S extends string> = S extends `${infer Name}${'/' | '.' | '-' | ':' | ';' | ','}${string}`
  ? NameOf<Name>
  : S

/**
 * The `:name` parameters of a Koa path as @koa/router's path-to-regexp reads it, and whether each
 * is inside an optional group (`{/:id}`). Wildcards (`*rest`) are not among them.
 */
export function pathParamNames(path: string): { name: string; optional: boolean }[] {
  const names = (tokens: readonly Token[], optional: boolean): { name: string; optional: boolean }[] =>
    tokens.flatMap((token) =>
      token.type === 'param'
        ? [{ name: token.name, optional }]
        : token.type === 'group'
          ? names(token.tokens, true)
          : [],
    )
  return names(parse(path).tokens, false)
}

/**
 * The schema of a path's parameters as `RouteSpec.params` describes them by default (none: no
 * parameter): each `:name` a non-empty string of at most `max` characters, one in an optional
 * group maybe missing; any other the router gives (a wildcard's) passes as it is.
 */
function pathParams(path: string, max?: RouteSpec['paramMax']): z.ZodObject | undefined {
  const names = pathParamNames(path)
  if (names.length === 0) return undefined
  const maxOf = (name: string) => (typeof max === 'number' ? max : max?.[name]) ?? 200
  return z.looseObject(
    Object.fromEntries(
      names.map(({ name, optional }) => {
        const value = z.string().min(1).max(maxOf(name))
        return [name, optional ? value.optional() : value]
      }),
    ),
  )
}

/**
 * What a handler may return for a documented response: its shape, with literal values widened
 * (`status: 'success'` in a returned object literal is a string to TypeScript), arrays
 * readonly, and a loose object's index signature dropped (records are interfaces without one), so
 * the compiler checks the documented fields against what the handler returns, without casts.
 */
type Answer<T> = T extends string
  ? string
  : T extends readonly (infer U)[]
    ? readonly Answer<U>[]
    : T extends object
      ? { [K in keyof T as string extends K ? never : K]: Answer<T[K]> }
      : T

const specs = new WeakMap<Layer, RouteSpec>()
const ACCESS = Symbol.for('server-manager.web.access')

/** Gives a layer the spec it stands for (a route of a plugin's thread, served here by its proxy). */
export function attachSpec(layer: Layer, spec: RouteSpec): void {
  specs.set(layer, spec)
}

/**
 * The guards of a route: its access's (on its server, for a route on one), then, for a `session`
 * route, the session-only check.
 */
export function guardsFor(
  spec: Pick<RouteSpec, 'access' | 'session' | 'path' | 'right' | 'serverParam'>,
): Middleware<WebState>[] {
  const scope = serverScope(spec)
  const first = scope ? guard(spec.access, scope) : GUARDS[spec.access]
  return spec.session ? [first, sessionOnly] : [first]
}

/**
 * The server a route acts on: the parameter its `right` names (`serverParam`, default `name`),
 * or, with no right declared, the parameter after a `servers/` segment of its path (a core
 * route's `/servers/:name`, a plugin's `/my_plugin/servers/:name/stats`): only accounts with
 * every server's reach may call that one. A route that declares a right on a parameter its path
 * lacks is a mistake, said at once.
 */
function serverScope(spec: Pick<RouteSpec, 'path' | 'right' | 'serverParam'>): ServerScope | undefined {
  if (spec.right) {
    const param = spec.serverParam ?? 'name'
    if (!pathParamNames(spec.path).some((p) => p.name === param && !p.optional))
      throw new Error(
        `the route ${spec.path} declares the right '${spec.right}' but has no :${param} to name its server`,
      )
    return { param, right: spec.right }
  }
  const named = /(?:^|\/)servers\/:(\w+)/.exec(spec.path)?.[1]
  return named === undefined ? undefined : { param: named, right: undefined }
}

/** The spec a layer was defined with (undefined for a plain `router.get`). */
export function specOf(layer: Layer): RouteSpec | undefined {
  return specs.get(layer)
}

/** The access a guard middleware enforces, if the middleware is one of ours. */
export function accessOf(middleware: unknown): Access | undefined {
  return typeof middleware === 'function' ? (middleware as { [ACCESS]?: Access })[ACCESS] : undefined
}

/** The server a route acts on: its path parameter, and the right an account held to grants needs there (none: not such an account). */
interface ServerScope {
  readonly param: string
  readonly right: ServerRight | undefined
}

/**
 * Whether `user` may call a route of `required` access (on `server`, when it acts on one):
 * throws the coded refusal. An account held to its server grants is judged by its rights on that
 * server (a server it was not granted does not exist for it: 404), and elsewhere as a `user`.
 */
export function admit(user: Identity, required: Role, server: { name: string; right?: ServerRight } | undefined): void {
  const refused = refusal(user, required, server)
  if (refused) throw refused
}

/** Why `user` may not call such a route (what `admit` throws), or undefined when it may. */
export function refusal(
  user: Identity,
  required: Role,
  server: { name: string; right?: ServerRight } | undefined,
): SmError | undefined {
  const below = !roleAtLeast(user.role, required)
  if (!heldToGrants(user))
    return below ? new SmError('SM_ERR_AUTH_FORBIDDEN', { role: user.role, required }) : undefined
  // A token below its owner's role: its role bounds it, grants or not.
  if (user.capped && below) return new SmError('SM_ERR_AUTH_FORBIDDEN', { role: user.role, required })
  if (!server) return required !== 'user' ? new SmError('SM_ERR_AUTH_HELD_TO_SERVERS', { required }) : undefined
  if (!seesServer(user, server.name)) return new SmError('SM_ERR_SERVER_NOT_FOUND', { server: server.name, hint: '' })
  if (!server.right) return new SmError('SM_ERR_AUTH_HELD_TO_SERVERS', { required })
  if (!user.servers?.[server.name]?.includes(server.right))
    return new SmError('SM_ERR_AUTH_NO_SERVER_RIGHT', { server: server.name, right: server.right })
  return undefined
}

function guard(required: Access, scope?: ServerScope): Middleware<WebState> {
  // Not async: a refusal still rejects (koa-compose wraps a throw), and a pass adds no promise of its own.
  const middleware: Middleware<WebState> = (ctx, next) => {
    if (required !== 'public') {
      const user = ctx.state.user
      if (!user) throw ctx.state.authError ?? new SmError('SM_ERR_AUTH_REQUIRED', {})
      const name = scope ? ctx.params?.[scope.param] : undefined
      admit(user, required, scope && typeof name === 'string' ? { name, right: scope.right } : undefined)
    }
    // The route matched and its caller may call it: only now is the request's body read.
    const reading = readBody(ctx)
    return reading ? reading.then(() => next()) : next()
  }
  Object.defineProperty(middleware, ACCESS, { value: required })
  Object.defineProperty(middleware, 'name', { value: `require_${required}` })
  return middleware
}

/** Any signed-in user (the seed's get_current_user). */
export const requireUser = guard('user')
/** Moderators and admins (get_moderator_user). */
export const requireModerator = guard('moderator')
/** Admins only (get_admin_user). */
export const requireAdmin = guard('admin')
/** Anyone, signed in or not: say so explicitly, since a plugin route with no guard needs a signed-in user. */
export const allowPublic = guard('public')

const GUARDS: Record<Access, Middleware<WebState>> = {
  user: requireUser,
  moderator: requireModerator,
  admin: requireAdmin,
  public: allowPublic,
}

/** After the role guard of a `session` route (a token below the role got SM_ERR_AUTH_FORBIDDEN there): any API token is refused. */
const sessionOnly: Middleware<WebState> = (ctx, next) => {
  const user = currentUser(ctx)
  if (user.via !== 'session') throw new SmError('SM_ERR_AUTH_SESSION_REQUIRED', {})
  return next()
}

/** The signed-in caller; throws 401 when there is none (for handlers behind `public`). */
export function currentUser(ctx: { state: WebState }): Identity {
  const user = ctx.state.user
  if (!user) throw ctx.state.authError ?? new SmError('SM_ERR_AUTH_REQUIRED', {})
  return user
}

/**
 * Registers a route on `router` from its spec: the access guard, then validation of path
 * parameters, query and body with the zod schemas (422 listing the issues), then the handler.
 * A handler's return value becomes the JSON body (with `status`); a handler may also set
 * `ctx.body` itself. The route appears in `/api/openapi.json` with its schemas.
 */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
  S extends string = string,
>(
  router: Router,
  spec: RouteSpec & { path: S; params?: P; query?: Q; body?: B; response?: R },
  handler: (
    ctx: WebContext,
    input: RouteInput<P extends z.ZodType ? z.output<P> : PathParams<S>, Out<Q>, Out<B>>,
  ) =>
    | (R extends z.ZodType ? Answer<z.input<R>> : unknown)
    | undefined
    | Promise<(R extends z.ZodType ? Answer<z.input<R>> : unknown) | undefined>,
): Layer {
  const params = spec.params ?? pathParams(spec.path, spec.paramMax)
  // The end of the chain: it answers, it never calls next.
  const run = async (ctx: WebContext) => {
    const issues: { where: string; path: string; message: string }[] = []
    const parse = (where: string, schema: z.ZodType | undefined, value: unknown) => {
      if (!schema) return undefined
      const result = schema.safeParse(value)
      if (result.success) return result.data
      for (const issue of result.error.issues)
        issues.push({ where, path: issue.path.map(String).join('.'), message: issue.message })
      return undefined
    }
    const input = {
      params: parse('path', params, ctx.params),
      query: parse('query', spec.query, ctx.query),
      body: parse('body', spec.body, ctx.request.body ?? {}),
    }
    if (issues.length > 0) {
      const summary = issues
        .slice(0, 3)
        .map((i) => `${i.where}${i.path ? ` '${i.path}'` : ''}: ${i.message}`)
        .join('; ')
      throw new SmError('SM_ERR_WEB_VALIDATION', { summary, issues })
    }
    const result = await handler(ctx, input as Parameters<typeof handler>[1])
    if (result !== undefined) {
      ctx.status = spec.status ?? 200
      ctx.body = result
    }
  }
  const name = spec.name ?? null
  const chain = [...guardsFor(spec), run]
  // A cast at @koa/router's seam: register() takes its own middleware type, which our guards and
  // handler (Koa middleware over WebState) are at run time but not to TypeScript.
  const layer = router.register(spec.path, [spec.method.toUpperCase()], chain as never, { name }) as Layer
  specs.set(layer, { ...spec, params } as RouteSpec)
  return layer
}

export { Router, z }
