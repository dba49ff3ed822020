import type Router from '@koa/router'
import { z } from 'zod'
import { presentedToken, type WebApp } from '../app'
import { currentUser, defineRoute } from '../route'
import { StoredEvent, success } from './api-schemas'

/** The event log's routes: its facts (a filter reshaped to the command's) and the live stream. */
export function eventRoutes(app: WebApp, router: Router): void {
  const { bus } = app
  const events = ['Events']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/events',
      name: 'list_events',
      summary: 'The event log (facts), oldest first; filter by type (prefix*), time and sequence',
      tags: events,
      access: 'admin',
      query: z.object({
        types: z.string().optional().meta({ description: 'comma-separated; a trailing * matches a prefix' }),
        after: z.coerce.number().int().min(0).optional(),
        since: z.string().optional(),
        until: z.string().optional(),
        limit: z.coerce.number().int().min(1).max(10_000).default(100),
        tail: z.enum(['true', 'false']).optional(),
      }),
      response: success('EventList', { events: z.array(StoredEvent) }),
    },
    async (_ctx, { query }) => ({
      status: 'success',
      events: await bus.request('events:read', {
        types: query.types ? [query.types] : undefined,
        afterSeq: query.after,
        since: query.since,
        until: query.until,
        limit: query.limit,
        tail: query.tail === 'true',
      }),
    }),
  )
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
