import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { isDiskFull, reasonOf, SmError } from '../../kernel/errors'
import { isSameProcess } from '../../lib/process-identity'

/** What a running manager writes next to its socket, for `status` and for the next manager's refusal. */
export interface ManagerInfo {
  readonly pid: number
  /** ISO time the manager started. */
  readonly startedAt: string
  /** Boot id plus the process's start time: a reused PID does not match it. */
  readonly identity: string | undefined
  readonly dataDir: string
  readonly version: string
}

export interface ManagerFiles {
  readonly socket: string
  readonly info: string
  readonly takeover: string
}

/** UNIX socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107

export function managerFiles(dataDir: string): ManagerFiles {
  const socket = join(dataDir, 'manager.sock')
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) throw new SmError('SM_ERR_BRIDGE_PATH_TOO_LONG', { path: socket })
  return { socket, info: join(dataDir, 'manager.json'), takeover: join(dataDir, 'manager.takeover') }
}

export function readManagerInfo(files: ManagerFiles): ManagerInfo | undefined {
  try {
    return JSON.parse(readFileSync(files.info, 'utf8')) as ManagerInfo
  } catch {
    return undefined
  }
}

/** Writes `manager.json` whole or not at all; a full disk is SM_ERR_DISK_FULL naming the file, with no `.tmp` left. */
export function writeManagerInfo(files: ManagerFiles, info: ManagerInfo): void {
  const tmp = `${files.info}.tmp`
  try {
    writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 })
    renameSync(tmp, files.info)
  } catch (error) {
    rmSync(tmp, { force: true })
    if (!isDiskFull(error)) throw error
    throw new SmError(
      'SM_ERR_DISK_FULL',
      { reason: `'${files.info}' cannot be written: ${reasonOf(error)}` },
      { cause: error },
    )
  }
}

/** Whether the process that wrote `info` still runs (not a zombie, not another process with its PID). */
export function isManagerAlive(info: ManagerInfo): boolean {
  return isSameProcess(info.pid, info.identity)
}

const TAKEOVER_STALE_MS = 10_000
const TAKEOVER_WAIT_MS = 5_000

/**
 * Runs `fn` holding `manager.takeover` (created with O_EXCL): whoever removes a stale socket and
 * whoever binds a new one do it one at a time, so nobody ever removes a live manager's socket.
 */
export async function withTakeover<T>(files: ManagerFiles, fn: () => Promise<T>): Promise<T> {
  const began = Date.now()
  for (;;) {
    let fd: number | undefined
    try {
      fd = openSync(files.takeover, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (fd !== undefined) {
      closeSync(fd)
      try {
        return await fn()
      } finally {
        rmSync(files.takeover, { force: true })
      }
    }
    // Left behind by a process that died inside the few lines above.
    if (ageMs(files.takeover) > TAKEOVER_STALE_MS) rmSync(files.takeover, { force: true })
    else if (Date.now() - began > TAKEOVER_WAIT_MS)
      throw new SmError('SM_ERR_BRIDGE_UNREACHABLE', {
        path: files.socket,
        reason: `${files.takeover} has been held for over ${TAKEOVER_WAIT_MS / 1000} s`,
      })
    else await sleep(20)
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs
  } catch {
    return 0
  }
}
