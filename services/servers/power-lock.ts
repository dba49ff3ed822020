import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { SmError } from '../../kernel/errors'
import { isSameProcess, processIdentity } from '../../kernel/process-identity'
import './errors'
import { setTimeout as sleep } from 'node:timers/promises'

interface Holder {
  readonly pid: number
  readonly identity: string | undefined
  readonly action: string
  readonly since: string
}

/**
 * Runs `fn` holding a server's power lock, a file created with O_EXCL that names its holder:
 * one start, stop or restart per server at a time, across every process of the data directory.
 * A lock whose holder died (checked by PID plus identity) is taken over; a live one is refused
 * with SM_ERR_SERVER_BUSY at once.
 */
export async function withPowerLock<T>(path: string, server: string, action: string, fn: () => Promise<T>): Promise<T> {
  const mine: Holder = {
    pid: process.pid,
    identity: processIdentity(process.pid),
    action,
    since: new Date().toISOString(),
  }
  for (let attempt = 0; ; attempt++) {
    let fd: number
    try {
      fd = openSync(path, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error
      const holder = readHolder(path)
      if (holder && isSameProcess(holder.pid, holder.identity))
        throw new SmError('SM_ERR_SERVER_BUSY', {
          server,
          action: holder.action,
          pid: String(holder.pid),
          since: holder.since,
        })
      rmSync(path, { force: true }) // its holder is gone (or it was written half: a crash at the first line)
      continue
    }
    try {
      writeSync(fd, JSON.stringify(mine))
    } finally {
      closeSync(fd)
    }
    try {
      return await fn()
    } finally {
      if (readHolder(path)?.pid === process.pid) rmSync(path, { force: true })
    }
  }
}

/**
 * Runs `fn` holding a lock file like the power lock, waiting up to `waitMs` for a live holder to
 * finish; gives up (undefined, `fn` not run) if it does not. A dead holder's lock is taken over.
 */
export async function withFileLock<T>(path: string, waitMs: number, fn: () => Promise<T>): Promise<T | undefined> {
  const began = Date.now()
  for (;;) {
    try {
      return await withPowerLock(path, 'lock', 'lock', fn)
    } catch (error) {
      if ((error as { code?: string }).code !== 'SM_ERR_SERVER_BUSY') throw error
      if (Date.now() - began > waitMs) return undefined
      await sleep(10)
    }
  }
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
