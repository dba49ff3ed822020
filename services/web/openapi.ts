import { z } from 'zod'
import type { KnownRoute } from './plugin-layer'
import { hasBody, isWrite, type RouteSpec, specOf } from './route'

const ErrorBody = z
  .object({
    status: z.literal('error'),
    code: z.string().meta({ example: 'SM_ERR_AUTH_REQUIRED' }),
    message: z.string(),
    detail: z.string().meta({ description: 'The message again (the original FastAPI field).' }),
    issues: z
      .array(z.object({ where: z.string(), path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Validation issues (422).' }),
    reply: z
      .array(z.string())
      .optional()
      .meta({ description: 'The lines the game answered to a console command it refused (422).' }),
  })
  .meta({ id: 'Error' })

/** Paths a GET may open before first-run setup; any other GET is sent to /setup until then. */
export const SETUP_EXEMPT = /^\/(api|auth|static|docs|setup|favicon\.ico)(\/|$)/

/** `/servers/:name` → `/servers/{name}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)(\([^)]*\))?[?*+]?/g, '{$1}')
}

/**
 * The OpenAPI 3.1 document of every route the server answers, core and plugin alike: routes
 * made with `defineRoute` carry their zod schemas; plain `router.get(...)` routes of plugins
 * appear with their path parameters, tagged with the plugin's name. Each operation says who
 * may call it (`security`, and `x-required-role`).
 */
export function openApiDocument(routes: readonly KnownRoute[], info: { version: string }): object {
  // Loaded with the first document asked for (it is cached), not with the web service.
  const { OpenAPIRegistry, OpenApiGeneratorV31 } =
    require('@asteasolutions/zod-to-openapi') as typeof import('@asteasolutions/zod-to-openapi')
  const registry = new OpenAPIRegistry()
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A session token from POST /auth/token, or an API token (smt_…).',
  })
  registry.registerComponent('securitySchemes', 'cookie', { type: 'apiKey', in: 'cookie', name: 'access_token_cookie' })
  const ids = new Set<string>()
  const extensions = new Map<string, string>()
  for (const route of routes) {
    const spec = specOf(route.layer)
    const path = openApiPath(route.path)
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'
    const tags = spec?.tags?.length ? [...spec.tags] : [route.owner === 'core' ? 'Core' : route.owner]
    if (route.owner !== 'core' && !tags.includes(route.owner)) tags.push(route.owner)
    let operationId = (spec?.name ?? route.layer.name ?? `${method}_${path}`).replace(/[^A-Za-z0-9_]+/g, '_')
    while (ids.has(operationId)) operationId += '_'
    ids.add(operationId)
    const paramNames = route.layer.paramNames.map((key) => String(key.name))
    const params =
      spec?.params ??
      (paramNames.length > 0 ? z.object(Object.fromEntries(paramNames.map((n) => [n, z.string()]))) : undefined)
    const responses = responsesOf(route, spec, method, path)
    registry.registerPath({
      method,
      path,
      operationId,
      // Every operation has a summary: a plain plugin route gets one from its name or its path.
      summary: spec?.summary ?? route.layer.name ?? `${route.method.toUpperCase()} ${path} (plugin ${route.owner})`,
      description: spec?.description,
      tags,
      security: route.access === 'public' ? [] : [{ bearer: [] }, { cookie: [] }],
      request: {
        params: parameters(params),
        query: parameters(spec?.query),
        body: spec?.uploads
          ? { content: { 'multipart/form-data': { schema: multipartSchema(spec.body, spec.uploads) } } }
          : spec?.body
            ? { content: { 'application/json': { schema: spec.body } } }
            : undefined,
      },
      responses,
    })
    extensions.set(`${method} ${path}`, route.access)
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'server-manager',
      version: info.version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Start, stop, command and back up game servers, manage plugins and users. Sign in with POST /auth/token, then send `Authorization: Bearer <token>`; or use an API token. Every error answer is the JSON `Error` body (a page asks for HTML gets an error page instead).',
    },
    // The manager that serves this document, whatever name or proxy it is reached through.
    servers: [{ url: '/', description: 'this manager' }],
  }) as { paths?: Record<string, Record<string, Record<string, unknown>>> }
  for (const [path, operations] of Object.entries(document.paths ?? {}))
    for (const [method, operation] of Object.entries(operations))
      operation['x-required-role'] = extensions.get(`${method} ${path}`) ?? 'user'
  placeholdersAsCode(document, 0)
  return document
}

/** Path or query parameters as the generator takes them: an object's fields (every route declares them so). */
const parameters = (schema: z.ZodType | undefined) => (schema instanceof z.ZodObject ? schema : undefined)

/** A multipart form: its fields (the route's body schema) and its files, each a binary part. */
function multipartSchema(fields: z.ZodType | undefined, uploads: Readonly<Record<string, string>>): z.ZodType {
  const files = Object.fromEntries(
    Object.entries(uploads).map(([name, description]) => [
      name,
      z.string().meta({ description, format: 'binary', contentMediaType: 'application/octet-stream' }),
    ]),
  )
  return fields instanceof z.ZodObject ? fields.extend(files) : z.object(files)
}

/**
 * Descriptions are Markdown (Swagger UI renders them): a bare placeholder (`Bearer <token>`,
 * `server_log:<name>`) would be taken for an HTML tag and dropped, so each goes in a code span.
 */
function placeholdersAsCode(node: unknown, depth: number): void {
  if (node === null || typeof node !== 'object' || depth > 64) return
  const record = node as Record<string, unknown>
  for (const [key, value] of Object.entries(record)) {
    if (key === 'description' && typeof value === 'string')
      // Outside code spans (the odd parts of a split on backticks are inside one).
      record[key] = value
        .split('`')
        .map((part, i) => (i % 2 ? part : part.replace(/[\w:./-]*<[\w-]+>[\w:./-]*/g, (word) => `\`${word}\``)))
        .join('`')
    else placeholdersAsCode(value, depth + 1)
  }
}

const errorBody = { schema: ErrorBody }
const htmlPage = { schema: { type: 'string' } }

/**
 * Every status an operation answers, with its content types: its success; the errors of its
 * kind (access, body, schemas, pages); the errors its spec declares; 500 and 503 for all.
 * test/services/web/openapi.test.ts calls every route and checks each answer is listed here.
 */
function responsesOf(
  route: KnownRoute,
  spec: RouteSpec | undefined,
  method: string,
  path: string,
): Record<string, object> {
  const status = spec?.status ?? 200
  // Errors of a GET outside /api/ are an HTML page for a browser, the JSON body for anyone else.
  const page = method === 'get' && !path.startsWith('/api/')
  const error = (description: string) => ({
    description,
    content: page ? { 'application/json': errorBody, 'text/html': htmlPage } : { 'application/json': errorBody },
  })
  const responses: Record<string, object> = {}
  if (status >= 300 && status < 400)
    responses[String(status)] = {
      description: spec?.summary ?? 'Redirect',
      headers: { Location: { description: 'where to go', schema: { type: 'string' } } },
    }
  else responses[String(status)] = { description: spec?.summary ?? 'Success', content: successContent(spec) }
  const redirects: string[] = spec?.redirect ? [spec.redirect] : []
  if (method === 'get' && !SETUP_EXEMPT.test(path)) redirects.push('to /setup while no user exists (first run)')
  if (page && route.access !== 'public')
    redirects.push('to /login?next=… when a browser (Accept: text/html) is not signed in')
  if (redirects.length > 0 && status !== 302)
    responses['302'] = {
      description: `Redirect: ${redirects.join('; ')}.`,
      headers: { Location: { description: 'where to go', schema: { type: 'string' } } },
    }
  if (hasBody(method)) {
    responses['400'] = error('The body is not valid JSON, form data or multipart data.')
    responses['413'] = error('The body, or an uploaded file, is larger than its limit (web.max_upload_mb for files).')
  }
  if (route.access !== 'public') responses['401'] = error('Not signed in, or the token is not valid.')
  const forbidden: string[] = []
  if (route.access === 'moderator' || route.access === 'admin') forbidden.push(`needs the role ${route.access}`)
  if (route.access !== 'public' && isWrite(method))
    forbidden.push('a write signed in by the session cookie needs the X-CSRF-Token header')
  if (isWrite(method)) forbidden.push("a write's Origin header, when sent, must be the manager's own origin")
  if (spec?.session) forbidden.push('needs a signed-in session (not an API token)')
  if (spec?.errors?.[403]) forbidden.push(spec.errors[403])
  if (forbidden.length > 0) responses['403'] = error(`Forbidden: ${forbidden.join('; ')}.`)
  if (spec?.params || spec?.query || spec?.body)
    responses['422'] = error(spec.errors?.[422] ?? 'The request is not valid (`issues` lists what).')
  for (const [code, description] of Object.entries(spec?.errors ?? {}))
    if (code !== '403' && code !== '422') responses[code] = error(description)
  responses['421'] = error("The Host header is not one of the manager's names (add it to web.allowed_hosts).")
  responses['500'] = error('Something failed inside the manager; the detail is in its log.')
  responses['503'] = error('The manager is starting or stopping, or a service it needs is unavailable: try again.')
  return responses
}

function successContent(spec: RouteSpec | undefined): Record<string, object> {
  if (spec?.response) return { 'application/json': { schema: spec.response } }
  if (spec?.produces)
    return {
      [spec.produces]: {
        schema: spec.produces.startsWith('text/')
          ? { type: 'string' }
          : { type: 'string', contentMediaType: spec.produces },
      },
    }
  // A defineRoute route answers JSON; a plain router route answers whatever its handler sets.
  if (spec) return { 'application/json': { schema: {} } }
  return { '*/*': { schema: {} } }
}
