import { querySeries } from '../../../lib/series-query'
import { SERVER_FIELDS, SERVER_PEAKS } from '../contract'
import type { VerbTable } from './context'
import { asTask } from './long-work'

/** A server's run: its status and resource samples, starting, stopping, restarting and killing it. */
export const powerVerbs = {
  'servers:status': async (ctx, { name }) => {
    const run = await ctx.control.status(await ctx.find(name))
    const now = ctx.online(name, run.status)
    return now ? { ...run, players: now } : run
  },
  'servers:metrics': async (ctx, { name, ...range }) =>
    querySeries(ctx.control.files((await ctx.find(name)).name).metrics, SERVER_FIELDS, SERVER_PEAKS, range),
  'servers:start': asTask('start'),
  'servers:stop': asTask('stop'),
  'servers:restart': asTask('restart'),
  'servers:kill': async (ctx, { name }) => ctx.control.kill(await ctx.find(name)),
} satisfies VerbTable
