import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { performAction, SmError } from '../../../kernel'
import { MAX_UNPACKED_SETTING, unpackLimit } from '../backups/unpack-limits'
import { ACTIVE, type ServerRecord } from '../contract'
import { settled } from '../control-checks'
import { checkNewName, describeServer } from '../describe-server'
import { detectProfile } from '../detect'
import { applyUpdate, installSource, keptOnUpdate, renameJarForUpdate, stageRelease } from '../install'
import { dirConflict } from '../server-dir'
import { worldOf } from '../world'
import type { ServersContext, VerbTable } from './context'

/** Installing a server from a release, and updating one in place (after a backup). */
export const installVerbs = {
  'servers:install': async (ctx, { name, from, dir }) => {
    checkNewName(name, await ctx.all())
    const target = resolve(dir ?? join(String(await ctx.setting('paths.servers')), name))
    if (existsSync(target) && readdirSync(target).length > 0)
      throw new SmError('SM_ERR_SERVER_DIR_UNUSABLE', { dir: target, reason: 'it exists and is not empty' })
    // Before anything is unpacked there: the same place checks as an add.
    const conflict = dirConflict(target, await ctx.all(), await ctx.places())
    if (conflict) throw new SmError('SM_ERR_SERVER_DIR_UNUSABLE', { dir: target, reason: conflict })
    const source = await installSource(from, { into: target, maxBytes: await maxUnpacked(ctx) })
    const outcome = await performAction(ctx.bus, {
      before: 'before_server_install',
      after: 'after_server_install',
      payload: { serverName: name, source: source.description, mode: 'install' },
      perform: () =>
        ctx.task(`install ${name}`, name, async () => {
          const staging = await stageRelease(source, target)
          rmSync(target, { recursive: true, force: true })
          renameSync(staging, target)
          const server = describeServer({ name, dir: target }, await ctx.all(), await ctx.places())
          await ctx.bus.emit('servers:added', { server })
          return server
        }),
      message: (server) => `Installed '${name}' in ${server.dir}.`,
    })
    return settled(outcome, name, 'The install of')
  },
  'servers:update': async (ctx, { name, from, stopStart }) => {
    const server = await ctx.find(name)
    if (server.profile === 'generic')
      throw new SmError('SM_ERR_INSTALL_INVALID', {
        source: String(from),
        reason: `'${name}' is a generic server, whose program and data are not told apart: replace its files in its directory (the web file manager, or by hand) while it is stopped`,
      })
    const source = await installSource(from, { into: server.dir, maxBytes: await maxUnpacked(ctx) })
    const running = ACTIVE.includes((await ctx.control.status(server)).status)
    if (running && !stopStart) throw new SmError('SM_ERR_BACKUP_SERVER_RUNNING', { server: name, action: 'an update' })
    const outcome = await performAction(ctx.bus, {
      before: 'before_server_install',
      after: 'after_server_install',
      payload: { serverName: name, source: source.description, mode: 'update' },
      perform: () =>
        ctx.task(`update ${name}`, name, () => {
          const update = async () => {
            // Unpacked and checked first: a release of another game changes nothing.
            const staging = await stageRelease(source, server.dir)
            try {
              const game = detectProfile(staging)
              if (game !== server.profile)
                throw new SmError('SM_ERR_INSTALL_INVALID', {
                  source: source.description,
                  reason: `it holds a ${game} server, and '${name}' is a ${server.profile} one`,
                })
              checkWorldFolder(staging, server, source.description)
              if (server.profile === 'java') renameJarForUpdate(staging, server)
              // Everything the server has (a part it lacks is skipped): the state to go back to.
              const backup = (await ctx.backups.backup(server, 'all')).files
              return { replaced: applyUpdate(staging, server.dir, keptOnUpdate(server)), backup }
            } finally {
              rmSync(staging, { recursive: true, force: true })
            }
          }
          return running ? ctx.control.stopped(server, 'an update', update) : update()
        }),
      message: (r) => `Updated '${name}': replaced ${r.replaced.length} files and folders; config and worlds kept.`,
    })
    return settled(outcome, server.name, 'The update of')
  },
} satisfies VerbTable

/** servers.max_unpacked_mb, in bytes. */
async function maxUnpacked(ctx: ServersContext): Promise<number> {
  return unpackLimit(await ctx.setting(MAX_UNPACKED_SETTING))
}

/**
 * A release that holds something other than a folder where the server keeps its world (a file
 * `worlds`) is refused: moved in where the server has no world yet, every later backup and update
 * would fail on it.
 */
function checkWorldFolder(staging: string, server: ServerRecord, source: string): void {
  const world = worldOf(server)
  const top = world ? relative(server.dir, world).split(sep)[0] : undefined
  if (!top || top === '..') return
  const there = join(staging, top)
  if (lstatExists(there) && !lstatSync(there).isDirectory())
    throw new SmError('SM_ERR_INSTALL_INVALID', {
      source,
      reason: `its '${top}' is not a folder, and '${server.name}' keeps its world in one`,
    })
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}
