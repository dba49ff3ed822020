import type { ServerStatus } from '../servers/contract'

/**
 * What `server status` exits with, per status, for scripts: 0 only for a server that is up, so
 * `server status s && …` means it is. 0, 1 and 3 mean what they mean for an init script's
 * status (running; dead without having been stopped; not running). A status that cannot be read
 * (no such server, an unreadable database) exits with its error's code instead (64 and above).
 */
export const SERVER_STATUS_EXIT: Readonly<Record<ServerStatus, { readonly code: number; readonly meaning: string }>> = {
  running: { code: 0, meaning: 'running' },
  crashed: { code: 1, meaning: 'crashed (it died without being stopped: waiting to restart, or given up)' },
  error: { code: 2, meaning: 'error (it could not be started)' },
  stopped: { code: 3, meaning: 'stopped' },
  starting: { code: 4, meaning: 'starting (its process runs, its ready line has not come yet)' },
  stopping: { code: 5, meaning: 'stopping' },
}

/** The exit codes as one sentence, for the command's help. */
export function serverStatusExitText(): string {
  return Object.values(SERVER_STATUS_EXIT)
    .map(({ code, meaning }) => `${code} ${meaning}`)
    .join(', ')
}
