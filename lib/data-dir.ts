import { chmodSync, mkdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { reasonOf, SmError } from '../kernel/errors'

/**
 * The umask of every process that writes into a data directory (the manager, the CLI, the
 * supervisors): what they create there (the database and its -wal/-shm, logs, sockets, caches,
 * plugins.json, run directories, backups) is their user's alone, 0700 and 0600, without a
 * chmod after each file. SQLite gives -wal and -shm the database's own mode.
 */
export const PRIVATE_UMASK = 0o077

/** The log file of a data directory: every process of it writes there (and the manager's console). */
export function logFile(dataDir: string): string {
  return join(dataDir, 'logs', 'server-manager.log')
}

/** The data directory: `$SM_DATA_DIR`, else `~/.server-manager/`. Not created here (first use creates it). */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.SM_DATA_DIR?.trim()
  return configured ? resolve(configured) : join(homedir(), '.server-manager')
}

/** What `openDataDir` found: `tightened` holds the mode it had when it was open to others. */
interface DataDirCheck {
  readonly created: boolean
  readonly tightened?: string
}

/**
 * Makes sure the data directory holds secrets safely before anything is read or written there:
 * creates it 0700 when missing; one that others may enter is set to 0700 when this user owns it
 * (the caller logs that), and refused with SM_ERR_DATA_DIR_EXPOSED when another user does.
 */
export function openDataDir(path: string): DataDirCheck {
  let mode: number
  let owner: number
  try {
    ;({ mode, uid: owner } = statSync(path))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(path, error)
    try {
      mkdirSync(path, { recursive: true, mode: 0o700 })
      // mkdir's mode passes through the umask of an embedding program; this directory's may not.
      chmodSync(path, 0o700)
    } catch (cause) {
      throw unusable(path, cause)
    }
    return { created: true }
  }
  if ((mode & 0o077) === 0) return { created: false }
  const was = (mode & 0o777).toString(8).padStart(4, '0')
  if (owner !== process.getuid?.()) throw new SmError('SM_ERR_DATA_DIR_EXPOSED', { path, mode: was })
  try {
    chmodSync(path, 0o700)
  } catch (error) {
    throw unusable(path, error)
  }
  return { created: false, tightened: was }
}

function unusable(path: string, error: unknown): SmError {
  return new SmError('SM_ERR_DATA_DIR_UNUSABLE', { path, reason: reasonOf(error) }, { cause: error })
}
