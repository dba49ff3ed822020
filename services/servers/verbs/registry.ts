import { existsSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve, sep } from 'node:path'
import { type BusScope, performAction, reasonOf, SmError } from '../../../kernel'
import type { ServerRecord } from '../contract'
import { settled } from '../control-checks'
import { describeServer, editServer } from '../describe-server'
import { acceptEula, EULA_URL, eulaState } from '../eula'
import { gameProfile } from '../profiles'
import { isInside } from '../server-dir'
import { worldOf } from '../world'
import type { ServersContext, VerbTable } from './context'
import { resync } from './schedules'

/** The registry of servers: adding, listing, describing and removing them, and their EULA. */
export const registryVerbs = {
  'servers:add': async (ctx, request) => {
    const server = describeServer(request, await ctx.all(), await ctx.places())
    await ctx.bus.emit('servers:added', { server })
    return server
  },
  'servers:edit': async (ctx, request) => {
    const { record, changes } = editServer(await ctx.find(request.name), request)
    await ctx.bus.emit('servers:edited', { name: record.name, changes })
    return { server: await ctx.find(record.name), changed: Object.keys(changes) }
  },
  'servers:list': (ctx) => ctx.serverList.list(ctx),
  'servers:info': async (ctx, { name }) => {
    const server = await ctx.find(name)
    return { ...server, world: worldOf(server), dirExists: existsSync(server.dir) }
  },
  // A copy: the built-in profiles' nested fields are shared, and a plugin holds what it gets.
  'servers:profile': async (ctx, { name }) => structuredClone(gameProfile(await ctx.find(name))),
  'servers:remove': async (ctx, { name, deleteFiles, forget }) => {
    const server = await ctx.find(name)
    if (forget && server.host !== undefined) return forgetOnHost(ctx, server, deleteFiles)
    // A server whose run is under way is not removed: the same answer a start of it gets.
    const running = await ctx.control.refusal(server, 'start')
    if (running) throw running
    if (deleteFiles) await deleteData(ctx.bus, server, ctx.dataDir)
    rmSync(ctx.control.files(name).dir, { recursive: true, force: true })
    await ctx.bus.emit('servers:removed', { name, filesDeleted: deleteFiles === true })
    await resync(ctx) // its schedules went with it
    return {
      status: 'success' as const,
      message: `Server '${name}' removed${deleteFiles ? `, and ${server.dir} deleted` : `; its files stay in ${server.dir}`}.`,
      dir: server.dir,
      files: deleteFiles ? ('deleted' as const) : ('kept' as const),
    }
  },
  'servers:eula': async (ctx, { name, accept }) => {
    const server = await ctx.find(name)
    const needed = gameProfile(server).eula
    if (accept === true) {
      if (!needed)
        throw new SmError('SM_ERR_SERVER_PROFILE_INVALID', {
          server: name,
          field: 'EULA',
          reason: `its profile (${server.profile}) has no EULA to accept`,
        })
      acceptEula(server)
      await ctx.bus.emit('servers:eula_accepted', { serverName: name })
    }
    return { needed, ...eulaState(server), url: EULA_URL }
  },
} satisfies VerbTable

/**
 * Removes a server of another host from this manager only (`server remove --forget`): for a host
 * that will not come back. One that is online is asked instead, as a plain remove does.
 */
async function forgetOnHost(ctx: ServersContext, server: ServerRecord, deleteFiles: boolean | undefined) {
  const host = server.host as string
  if (deleteFiles)
    throw new SmError('SM_ERR_SERVER_FORGET_REFUSED', {
      server: server.name,
      host,
      reason: 'its files are on that host: --forget deletes nothing',
    })
  if (ctx.hosts()?.state(host)?.online)
    throw new SmError('SM_ERR_SERVER_FORGET_REFUSED', {
      server: server.name,
      host,
      reason: 'that host is online: remove it without --forget, which removes it there too',
    })
  await ctx.bus.emit('servers:removed', { name: server.name, filesDeleted: false, forgotten: host })
  await resync(ctx)
  return {
    status: 'success' as const,
    dir: server.dir,
    files: 'kept' as const,
    message: `Server '${server.name}' forgotten: this manager no longer lists it; on host '${host}' it, its files and its game, if that runs, stay as they were. If that host comes back, stop and remove it there: server-manager server stop ${server.name}; server-manager server remove ${server.name} (on that machine).`,
  }
}

/** Deletes a server's directory as the delete_server_data action, refusing paths no server should own. */
async function deleteData(bus: BusScope, server: ServerRecord, dataDir: string): Promise<void> {
  const refuse = (reason: string) =>
    new SmError('SM_ERR_SERVER_DELETE_REFUSED', { server: server.name, dir: server.dir, reason })
  const unsafe = [sep, homedir(), resolve(dataDir), process.cwd()].map((p) => resolve(p))
  if (unsafe.includes(resolve(server.dir)) || isInside(server.dir, resolve(dataDir)))
    throw refuse('it is the root, a home, the data directory or holds it; delete it by hand if you mean it')
  const outcome = await performAction(bus, {
    before: 'before_delete_server_data',
    after: 'after_delete_server_data',
    payload: { serverName: server.name, dir: server.dir },
    perform: async () => {
      try {
        rmSync(server.dir, { recursive: true, force: true })
      } catch (error) {
        throw refuse(reasonOf(error))
      }
    },
    message: () => `Deleted ${server.dir}.`,
  })
  settled(outcome, server.name, 'Deleting the files of')
}
