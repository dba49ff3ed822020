import Router from '@koa/router'
import { natsCommands } from '../../bridge/contract'
import type { WebApp } from '../app'
import { defineRoute } from '../route'
import { success } from './api-schemas'

/** The host agents on the NATS broker, as the manager hears them (none without a broker). */
export function hostsRoutes(app: WebApp): Router {
  const router = new Router({ prefix: '/api' })
  defineRoute(
    router,
    {
      method: 'get',
      path: '/hosts',
      name: 'nats:hosts',
      summary:
        "The manager's link to the NATS broker and every host agent that joined it: online or not (since when), version, load, memory, disk, servers",
      tags: ['Hosts'],
      access: 'moderator',
      response: success('Hosts', {
        nats: natsCommands['nats:status'].reply,
        hosts: natsCommands['nats:hosts'].reply,
      }),
    },
    async () => hosts(app),
  )
  return router
}

/** The broker link and the hosts; a web server in a process with no NATS service (an embedder's) has none. */
export async function hosts(app: WebApp) {
  const { bus } = app
  if (!bus.hasHandler('nats:hosts'))
    return { status: 'success' as const, nats: { configured: false, connected: false }, hosts: [] }
  return {
    status: 'success' as const,
    nats: await bus.request('nats:status', {}),
    hosts: await bus.request('nats:hosts', {}),
  }
}
