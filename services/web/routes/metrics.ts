import Router from '@koa/router'
import { z } from 'zod'
import { metricsCommands } from '../../metrics/contract'
import { serversCommands } from '../../servers/contract'
import type { WebApp } from '../app'
import { defineRoute } from '../route'
import { success } from './api-schemas'

const ms = z.coerce.number().int().min(0)
/** A range of a series: from and to in ms since the epoch, and how coarse its points may be. */
const Range = z
  .object({
    from: ms.optional().meta({ description: 'ms since the epoch (default: an hour before `to`)' }),
    to: ms.optional().meta({ description: 'ms since the epoch (default: now)' }),
    step_s: z.coerce
      .number()
      .int()
      .min(0)
      .max(86_400)
      .optional()
      .meta({ description: 'average the points over this many seconds (default: as stored, up to 1000 points)' }),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: '`from` must not be after `to`',
    path: ['from'],
  })
/** The series as the bus answers them (the contracts' replies). */
const serverSeries = serversCommands['servers:metrics'].reply.shape
const hostSeries = metricsCommands['metrics:host_series'].reply.shape
const HostSample = z
  .looseObject({
    t: z.number(),
    cpu: z.number().meta({ description: '% of all cores' }),
    mem_used: z.number(),
    mem_total: z.number(),
    disk_used: z.number().optional().meta({ description: "the data directory's file system" }),
    disk_total: z.number().optional(),
  })
  .meta({ id: 'HostSample' })

/** The resource series: a server's (sampled by its supervisor) and the host's (by the manager). */
export function metricsRoutes(app: WebApp): Router {
  const { bus } = app
  const router = new Router({ prefix: '/api' })
  const tags = ['Metrics']
  defineRoute(
    router,
    {
      method: 'get',
      path: '/servers/:name/metrics',
      right: 'view',
      name: 'servers:sampled',
      summary: "A server's CPU, memory and disk use over a range (its supervisor's samples)",
      tags,
      access: 'user',
      query: Range,
      response: success('ServerMetrics', serverSeries),
      errors: { 404: 'No server of that name.' },
    },
    async (_ctx, { params, query }) => ({
      status: 'success',
      ...(await bus.request('servers:metrics', { name: params.name, ...range(query) })),
    }),
  )
  defineRoute(
    router,
    {
      method: 'get',
      path: '/host/metrics',
      name: 'metrics:host_sampled',
      summary: "The machine's CPU, memory and data disk use over a range, and its last sample",
      tags,
      access: 'moderator',
      query: Range,
      response: success('HostMetrics', {
        ...hostSeries,
        latest: HostSample.optional().meta({ description: 'the last sample, while the manager samples' }),
      }),
    },
    async (_ctx, { query }) => ({
      status: 'success',
      ...(await bus.request('metrics:host_series', range(query))),
      latest: (await bus.request('metrics:host', {})).sample,
    }),
  )
  return router
}

function range(query: { from?: number; to?: number; step_s?: number }) {
  return { from: query.from, to: query.to, stepS: query.step_s }
}
