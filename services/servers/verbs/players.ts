import type { VerbTable } from './context'

/** Who plays on a server: online now, the history of who joined, the allowlist and operators. */
export const playerVerbs = {
  'servers:players': async (ctx, { name }) => ctx.listPlayers(await ctx.find(name)),
  'servers:player_history': async (ctx, { name }) => {
    const server = await ctx.find(name)
    await ctx.control.status(server) // a look records a game's end nobody saw, which ends its sessions
    return ctx.history(server.name)
  },
  'servers:access_list': async (ctx, { name, list }) => ctx.access.list(await ctx.find(name), list),
  'servers:access_change': async (ctx, { name, list, change, player }) =>
    ctx.access.change(await ctx.find(name), list, change, player),
} satisfies VerbTable
