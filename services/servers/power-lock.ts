import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { SmError } from '../../kernel/errors'
import { isSameProcess, ownProcess } from '../../lib/process-identity'

interface Holder {
  readonly pid: number
  readonly identity: string | undefined
  readonly action: string
  readonly since: string
}

/**
 * Takes a lock file (linked into place whole, naming its holder), or answers the live process that
 * holds it. A lock whose holder died (checked by PID plus identity), or that a crash left half
 * written, is taken over.
 */
function acquire(path: string, action: string): Holder | undefined {
  const mine: Holder = {
    ...ownProcess(),
    action,
    since: new Date().toISOString(),
  }
  // Written whole to a file of its own, then linked into place: the lock never exists empty, so
  // another process never reads a just-created lock as "half written by a crash" and takes it too.
  const draft = `${path}.${process.pid}.draft`
  try {
    writeFileSync(draft, JSON.stringify(mine), { mode: 0o600 })
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, path)
        return undefined
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error
        const holder = readHolder(path)
        if (holder && isSameProcess(holder.pid, holder.identity)) return holder
        rmSync(path, { force: true })
      }
    }
  } finally {
    rmSync(draft, { force: true })
  }
}

async function holding<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } finally {
    if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true })
  }
}

/**
 * Runs `fn` holding a server's power lock: one start, stop or restart per server at a time,
 * across every process of the data directory. A live holder's lock is refused with
 * SM_ERR_SERVER_BUSY at once.
 */
export async function withPowerLock<T>(path: string, server: string, action: string, fn: () => Promise<T>): Promise<T> {
  const holder = acquire(path, action)
  if (holder)
    throw new SmError('SM_ERR_SERVER_BUSY', {
      server,
      action: holder.action,
      pid: String(holder.pid),
      since: holder.since,
    })
  return holding(path, fn)
}

/**
 * Runs `fn` holding a lock file, waiting up to `waitMs` for a live holder to finish; gives up
 * (undefined, `fn` not run) if it does not.
 */
export async function withFileLock<T>(path: string, waitMs: number, fn: () => Promise<T>): Promise<T | undefined> {
  const began = Date.now()
  while (acquire(path, 'lock')) {
    if (Date.now() - began > waitMs) return undefined
    await sleep(10)
  }
  return holding(path, fn)
}

/** Whether a live process holds the lock (a quick look, for callers that only read). */
export function powerLockHeld(path: string): boolean {
  const holder = readHolder(path)
  return holder !== undefined && isSameProcess(holder.pid, holder.identity)
}

function readHolder(path: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder
  } catch {
    return undefined
  }
}
