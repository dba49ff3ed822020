import { readdirSync, realpathSync, statSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { Readable } from 'node:stream'
import type { Middleware } from 'koa'
import type { WebState } from './route'

export interface StaticOptions {
  /** Cache-Control max-age, in milliseconds (none when absent). */
  readonly maxage?: number
  /** A directory is never answered with an index file. */
  readonly index?: false
}

/**
 * Serves the files of one folder (a static mount: the core's or a plugin's) with koa-static,
 * GET and HEAD only, behind a check koa-static does not make (it follows links wherever they
 * go); anything not served goes on to the next middleware, which ends in the coded 404:
 * - a file is served only when its real path (every symbolic link resolved) is inside the
 *   folder's real path: a link to /etc/passwd, to the database or to another folder is
 *   not found, like a path with `..`, a hidden (dot) segment, a directory or a non-file;
 * - a file with more than one name (`nlink > 1`, a hard link) is not found either: a hard link
 *   has nothing to resolve, and may be any file of the same file system;
 * - a file this process already has open (its SQLite database, -wal and -shm, its log) is
 *   never opened: closing a second descriptor of a file drops the POSIX locks the process
 *   holds on it, after which another process's sqlite3 takes the database for unused and
 *   deletes the live -wal and -shm.
 * A link swapped in between the check and koa-static's open could still be served once; that
 * needs write access to the folder, which for a plugin's folder already means running code in
 * the manager.
 */
export function serveStatic(root: string, options: StaticOptions = {}): Middleware<WebState> {
  let base: string | undefined
  let send: Middleware<WebState> | undefined
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next()
    base ??= realRoot(root)
    const file = base && (await containedFile(base, ctx.path))
    if (!base || !file) return next()
    // koa-static (with koa-send, 28 modules) is loaded with the first file served, not with the web service.
    send ??= (require('koa-static') as typeof import('koa-static'))(base, { ...options, index: false })
    // Counted before koa-static opens it, so a request for the same file meanwhile never takes ours for the manager's.
    const release = serving(file)
    try {
      await send(ctx, next)
    } finally {
      // Koa destroys the stream when the response ends (also for HEAD), which closes the file.
      const body = ctx.body
      if (body instanceof Readable) body.once('close', release)
      else release()
    }
  }
}

// Descriptors this module holds, by file (device:inode): a static file served to two clients at once is not "open in the manager".
const held = new Map<string, number>()

function serving(file: { dev: number; ino: number }): () => void {
  const key = `${file.dev}:${file.ino}`
  held.set(key, (held.get(key) ?? 0) + 1)
  let done = false
  return () => {
    if (done) return
    done = true
    const left = (held.get(key) ?? 1) - 1
    if (left > 0) held.set(key, left)
    else held.delete(key)
  }
}

function realRoot(root: string): string | undefined {
  try {
    return realpathSync(root)
  } catch {
    return undefined // the folder is gone: nothing is served from it
  }
}

/** The file a URL path names inside `base` (a real path), checked as `serveStatic` says; else undefined. */
async function containedFile(
  base: string,
  urlPath: string,
): Promise<{ path: string; dev: number; ino: number } | undefined> {
  let relative: string
  try {
    relative = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  const segments = relative.split('/').filter((segment) => segment !== '')
  if (segments.length === 0 || relative.includes('\0')) return undefined
  if (segments.some((segment) => segment.startsWith('.'))) return undefined
  const real = await realpath(join(base, ...segments)).catch(() => undefined)
  if (!real?.startsWith(base.endsWith(sep) ? base : base + sep)) return undefined
  const found = await stat(real).catch(() => undefined)
  // A hard link has no link to resolve: a file with another name (nlink > 1) may be any file of the file system.
  if (!found?.isFile() || found.nlink > 1 || openInThisProcess(found.dev, found.ino)) return undefined
  return { path: real, dev: found.dev, ino: found.ino }
}

/**
 * Whether this process holds a descriptor of the file (device, inode) besides the ones this
 * module serves it with, from /proc/self/fd (stat follows each entry to the open file without
 * opening it). Read per request: static files are few per page, and a cache could miss a file
 * opened since. Without /proc (not Linux) nothing is known to be open.
 */
function openInThisProcess(dev: number, ino: number): boolean {
  let fds: string[]
  try {
    fds = readdirSync('/proc/self/fd')
  } catch {
    return false
  }
  let count = 0
  for (const fd of fds) {
    try {
      const open = statSync(`/proc/self/fd/${fd}`)
      if (open.ino === ino && open.dev === dev) count++
    } catch {
      // closed since the listing
    }
  }
  return count > (held.get(`${dev}:${ino}`) ?? 0)
}
