import { realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative } from 'node:path'
import type { ServerRecord } from './contract'

/**
 * The real path of `path` (symlinks and `..` resolved), also for one that does not exist yet:
 * its nearest existing ancestor's real path with the rest appended. Two names for one
 * directory (a symlink, a bind of the same path) compare equal only this way.
 */
function realPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = dirname(path)
    return parent === path ? path : join(realPath(parent), basename(path))
  }
}

/** Whether `child` is `parent` or inside it. */
export function isInside(parent: string, child: string): boolean {
  const path = relative(parent, child)
  return path === '' || (!path.startsWith('..') && !isAbsolute(path))
}

/**
 * Why `dir` cannot be a new server's directory, or undefined. Compared by real paths: it may not
 * be another server's directory (under any name), lie inside one or hold one (a backup, restore
 * or delete of one would reach into the other), nor be or hold the data directory or lie inside
 * it, except in the folder `server install` puts new servers in (`paths.servers`, by default
 * `<data dir>/server-files`).
 */
export function dirConflict(
  dir: string,
  servers: readonly ServerRecord[],
  places: { readonly dataDir: string; readonly serversFolder: string },
): string | undefined {
  const real = realPath(dir)
  for (const server of servers) {
    const other = realPath(server.dir)
    if (other === real) return `it is already the server '${server.name}' (${server.dir})`
    if (isInside(other, real)) return `it is inside the directory of the server '${server.name}' (${server.dir})`
    if (isInside(real, other)) return `it holds the directory of the server '${server.name}' (${server.dir})`
  }
  const data = realPath(places.dataDir)
  const folder = realPath(places.serversFolder)
  if (isInside(real, data)) return `it is or holds the data directory ${places.dataDir}`
  if (isInside(data, real) && !(isInside(folder, real) && real !== folder))
    return `it is inside the data directory ${places.dataDir} (only its folder for servers, ${places.serversFolder}, may hold servers)`
  return undefined
}
