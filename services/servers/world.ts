import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ServerRecord } from './contract'
import { gameProfile } from './profiles'
import { isInside } from './server-dir'
import { ServerProperties } from './server-properties'

/** The world directory in effect (absolute): the server's own, or where its profile says (`level-name`). */
export function worldOf(server: ServerRecord): string | undefined {
  const world = gameProfile(server).world
  if (!world) return undefined
  if ('dir' in world) return resolve(server.dir, world.dir)
  const file = join(server.dir, world.file)
  const named = existsSync(file) ? new ServerProperties(readFileSync(file, 'utf8')).get(world.property) : undefined
  const found = resolve(server.dir, world.parent, named || world.fallback)
  // A level name that leads out of the server's directory is not taken at its word.
  return isInside(server.dir, found) ? found : resolve(server.dir, world.parent, world.fallback)
}

/**
 * Whether a world backup of the server is its whole directory: its profile says where no world is
 * (a generic server added without --world-dir), so what its game writes could be anywhere in it.
 */
export function wholeDirectory(server: ServerRecord): boolean {
  return gameProfile(server).world === undefined
}

/** The folder a world backup archives, a restore replaces: the world's, or the whole server directory (wholeDirectory). */
export function worldFolder(server: ServerRecord): string | undefined {
  return wholeDirectory(server) ? resolve(server.dir) : worldOf(server)
}

/**
 * What a whole-directory backup leaves out, by its path inside the directory: logs (the `logs`
 * folder, `*.log` files and their rotations: `.log.1`, `.log.gz`) and a restore's own unfinished
 * folders. A restore keeps the ones the directory has.
 */
export function leftOut(name: string): boolean {
  const top = name.split('/')[0] ?? ''
  return top === 'logs' || /\.log(\.\d+)?(\.gz)?$/.test(name) || /^\.config-incoming-\d+$/.test(top)
}

/** The config files a backup of the server's configuration holds (those that exist are taken). */
export function configFiles(server: ServerRecord): readonly string[] {
  return gameProfile(server).configFiles
}
