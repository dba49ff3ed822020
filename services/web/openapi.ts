import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import type { KnownRoute } from './plugin-layer'
import { specOf } from './route'

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
  })
  .meta({ id: 'Error' })

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBody } } })

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
    const responses: Record<string, object> = {
      [String(spec?.status ?? 200)]: spec?.response
        ? { description: 'Success', content: { 'application/json': { schema: spec.response } } }
        : spec?.produces
          ? { description: 'Success', content: { [spec.produces]: { schema: { type: 'string' } } } }
          : { description: 'Success' },
    }
    if (route.access !== 'public') {
      responses['401'] = errorResponse('Not signed in, or the token is not valid.')
      if (route.access !== 'user' || spec?.session)
        responses['403'] = errorResponse(
          spec?.session
            ? `Needs a signed-in session (not an API token)${route.access === 'user' ? '' : ` of the role ${route.access}`}.`
            : `Needs the role ${route.access}.`,
        )
    }
    if (spec?.params || spec?.query || spec?.body) responses['422'] = errorResponse('The request is not valid.')
    registry.registerPath({
      method,
      path,
      operationId,
      summary: spec?.summary ?? route.layer.name ?? undefined,
      description: spec?.description,
      tags,
      security: route.access === 'public' ? [] : [{ bearer: [] }, { cookie: [] }],
      request: {
        params: params as never,
        query: spec?.query as never,
        body: spec?.body ? { content: { 'application/json': { schema: spec.body } } } : undefined,
      },
      responses: responses as never,
    })
    extensions.set(`${method} ${path}`, route.access)
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'server-manager',
      version: info.version,
      description:
        'Start, stop, command and back up game servers, manage plugins and users. Sign in with POST /auth/token, then send "Authorization: Bearer <token>"; or use an API token.',
    },
  }) as { paths?: Record<string, Record<string, Record<string, unknown>>> }
  for (const [path, operations] of Object.entries(document.paths ?? {}))
    for (const [method, operation] of Object.entries(operations))
      operation['x-required-role'] = extensions.get(`${method} ${path}`) ?? 'user'
  return document
}
