import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import { defineRoute } from '../route'

const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    withCredentials: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  })
}
`

/**
 * Swagger UI at /docs (and /docs/, the same route), from swagger-ui-dist on this machine (nothing
 * loaded from outside). Its assets are linked by absolute paths, so the page works at either URL
 * without a redirect, and the API document has no trailing-slash path.
 */
export function docsRoutes(swaggerDist: string): Router {
  const router = new Router()
  const index = readFileSync(join(swaggerDist, 'index.html'), 'utf8')
    // With a phone's viewport: without one a phone draws the page 980 px wide, shrunk to unreadable.
    .replace(
      '<title>Swagger UI</title>',
      '<meta name="viewport" content="width=device-width, initial-scale=1"><title>server-manager API</title>',
    )
    .replace(/(href|src)="(?:\.\/)?([^"/:]+)"/g, '$1="/docs/$2"')
  const tags = ['Docs']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/docs',
      name: 'docs',
      summary: 'Swagger UI',
      tags,
      access: 'public',
      produces: 'text/html',
    },
    (ctx) => {
      ctx.type = 'html'
      ctx.body = index
      return undefined
    },
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/docs/swagger-initializer.js',
      name: 'docs_initializer',
      summary: 'Swagger UI set-up',
      tags,
      access: 'public',
      produces: 'text/javascript',
    },
    (ctx) => {
      ctx.type = 'text/javascript'
      ctx.body = INITIALIZER
      return undefined
    },
  )
  return router
}
