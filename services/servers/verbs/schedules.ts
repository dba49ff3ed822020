import { SmError } from '../../../kernel'
import { describeSchedule, listed } from '../schedules'
import type { ServersContext, VerbTable } from './context'

/** Schedules: cron-timed backups, restarts and commands, run by the manager. */
export const scheduleVerbs = {
  'servers:schedule_add': async (ctx, { name, cron, action, command, timezone }) => {
    const server = await ctx.find(name)
    const schedule = describeSchedule({ server: server.name, cron, action, command, timezone })
    await ctx.bus.emit('servers:schedule_added', { schedule })
    await resync(ctx)
    return listed(schedule)
  },
  'servers:schedule_edit': async (ctx, { name, id, ...changes }) => {
    const server = await ctx.find(name)
    const previous = (await ctx.schedules()).find((s) => s.id === id && s.server === server.name)
    if (!previous) throw new SmError('SM_ERR_SCHEDULE_NOT_FOUND', { id: String(id) })
    const action = changes.action ?? previous.action
    const schedule = describeSchedule({
      id: previous.id,
      addedAt: previous.addedAt,
      server: server.name,
      cron: changes.cron ?? previous.cron,
      action,
      // A command stays with the command action; another action has none.
      command: action === 'command' ? (changes.command ?? previous.command) : undefined,
      timezone: changes.timezone ?? previous.timezone,
    })
    await ctx.bus.emit('servers:schedule_changed', { schedule, previous })
    await resync(ctx)
    return listed(schedule)
  },
  'servers:schedule_list': async (ctx, { name }) => {
    if (name !== undefined) await ctx.find(name)
    return (await ctx.schedules()).filter((s) => name === undefined || s.server === name).map(listed)
  },
  'servers:schedule_remove': async (ctx, { id, name }) => {
    // Named by its server too (its page's door): one of another server is not found there.
    const schedule = (await ctx.schedules()).find((s) => s.id === id && (name === undefined || s.server === name))
    if (!schedule) throw new SmError('SM_ERR_SCHEDULE_NOT_FOUND', { id: String(id) })
    await ctx.bus.emit('servers:schedule_removed', { id: schedule.id, server: schedule.server })
    await resync(ctx)
    return schedule
  },
} satisfies VerbTable

/** The manager's runner takes a changed list at once (a schedule added or removed, a server removed with its own); elsewhere nothing runs schedules. */
export async function resync(ctx: ServersContext): Promise<void> {
  if (ctx.scheduler.running) ctx.scheduler.sync(await ctx.schedules())
}
