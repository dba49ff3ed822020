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

/** The config files a backup of the server's configuration holds (those that exist are taken). */
export function configFiles(server: ServerRecord): readonly string[] {
  return gameProfile(server).configFiles
}
