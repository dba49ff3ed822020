import Router from '@koa/router'
import { z } from 'zod'
import type { WebApp } from '../app'
import { currentUser, defineRoute } from '../route'
import { visibleServers } from '../server-access'
import { accountRoutes } from './api-accounts'
import { eventRoutes } from './api-events'
import { pluginRoutes } from './api-plugins'
import { success } from './api-schemas'
import { serverRoutes } from './api-servers'
import { settingRoutes } from './api-settings'

/** The JSON API: status, servers, tasks, settings, plugins, the event log, users and API tokens. */
export function apiRoutes(app: WebApp): Router[] {
  const { bus } = app
  // One router per area: a request is matched only against its area's routes (see coreDispatch).
  const routers: Router[] = []
  const area = () => {
    const next = new Router({ prefix: '/api' })
    routers.push(next)
    return next
  }

  // -- status -------------------------------------------------------------------------------
  let router = area()
  defineRoute(
    router,
    {
      method: 'get',
      path: '/info',
      name: 'info',
      summary: 'The version (public)',
      tags: ['Status'],
      access: 'public',
      response: success('Info', { version: z.string() }),
    },
    () => ({ status: 'success', version: app.version }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/status',
      name: 'status',
      summary: 'The manager: version, uptime, servers, plugins, web clients',
      tags: ['Status'],
      access: 'user',
      response: success('ManagerStatus', {
        version: z.string(),
        uptime_s: z.number(),
        url: z.string().optional(),
        servers: z.object({ total: z.number(), running: z.number() }),
        plugins: z.object({ total: z.number(), loaded: z.number() }),
        stream_clients: z.number(),
      }),
    },
    async (ctx) => {
      const servers = visibleServers(currentUser(ctx), await bus.request('servers:list', {}))
      const plugins = await bus.request('plugins:list', {})
      return {
        status: 'success',
        version: app.version,
        uptime_s: Math.round((Date.now() - app.startedAt) / 1000),
        url: app.url(),
        servers: { total: servers.length, running: servers.filter((s) => s.status === 'running').length },
        plugins: { total: plugins.length, loaded: plugins.filter((p) => p.state === 'loaded').length },
        stream_clients: app.stream.clients,
      }
    },
  )

  serverRoutes(app, area())
  settingRoutes(app, area())
  pluginRoutes(app, area())
  eventRoutes(app, area())
  accountRoutes(app, area())

  // -- the API's description ------------------------------------------------------------------
  router = area()
  defineRoute(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      name: 'openapi',
      summary: 'This document',
      tags: ['Docs'],
      access: 'public',
      response: z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document: this one' }),
    },
    () => app.openApi(),
  )
  return routers
}
