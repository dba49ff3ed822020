import type Router from '@koa/router'
import { z } from 'zod'
import { presentedToken, type WebApp } from '../app'
import { currentUser, defineRoute } from '../route'

/** The event log's live stream (its facts are a route derived from events:read's door). */
export function eventRoutes(app: WebApp, router: Router): void {
  const events = ['Events']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/events/stream',
      name: 'event_stream',
      summary:
        'Live Server-Sent Events: topics server_status, tasks, task:<id>, players:<server>, server_log:<server>, servers:backup_progress:<server>, servers:sampled[:<server>], metrics:host_sampled, event:<type>',
      tags: events,
      access: 'user',
      query: z.object({ topics: z.string().default('server_status') }),
      produces: 'text/event-stream',
      errors: { 403: "A topic above the caller's role." },
    },
    (ctx, { query }) => {
      app.stream.open(
        ctx,
        query.topics
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        currentUser(ctx),
        presentedToken(ctx).token ?? '',
      )
      return undefined
    },
  )
}
