import type { VerbTable } from './context'

/** A server's console: commands sent to it (the command_send action) and its log's last lines. */
export const consoleVerbs = {
  'servers:send': async (ctx, { name, command }) => ctx.control.send(await ctx.find(name), command),
  'servers:logs': async (ctx, { name, lines }) => ctx.control.logs(await ctx.find(name), lines ?? 50),
} satisfies VerbTable
