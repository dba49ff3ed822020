import { lstat, opendir } from 'node:fs/promises'
import { join } from 'node:path'

/** The most entries one walk looks at: a server directory bigger than that is reported as at least its size. */
export const MAX_WALK_ENTRIES = 500_000

/** What a directory tree takes on disk. */
export interface DiskUsage {
  /** Allocated bytes (blocks × 512, as `du` counts), the directory itself included. */
  readonly bytes: number
  readonly entries: number
  /** The walk stopped at its limit: the tree takes at least `bytes`. */
  readonly partial: boolean
}

/**
 * Walks a directory tree and adds up what it takes on disk, one entry at a time through libuv's
 * thread pool, so the process goes on answering meanwhile. Links are not followed; a file linked
 * several times inside the tree counts once; what cannot be read (gone meanwhile, no permission)
 * counts nothing. At most `limit` entries.
 */
export async function diskUsage(dir: string, limit = MAX_WALK_ENTRIES): Promise<DiskUsage> {
  let bytes = 0
  let entries = 0
  const linked = new Set<string>()
  try {
    bytes += (await lstat(dir)).blocks * 512
  } catch {
    return { bytes: 0, entries: 0, partial: false }
  }
  const pending = [dir]
  while (pending.length > 0) {
    const current = pending.pop() as string
    let handle: Awaited<ReturnType<typeof opendir>>
    try {
      handle = await opendir(current)
    } catch {
      continue
    }
    // The handle is closed when the loop ends, returns included.
    for await (const entry of handle) {
      if (++entries > limit) return { bytes, entries: limit, partial: true }
      const path = join(current, entry.name)
      let stats: Awaited<ReturnType<typeof lstat>>
      try {
        stats = await lstat(path)
      } catch {
        continue
      }
      if (stats.nlink > 1 && !stats.isDirectory()) {
        const key = `${stats.dev}:${stats.ino}`
        if (linked.has(key)) continue
        linked.add(key)
      }
      bytes += stats.blocks * 512
      if (stats.isDirectory()) pending.push(path)
    }
  }
  return { bytes, entries, partial: false }
}
