import { chmodSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { SmError } from '../../../kernel/errors'
import { connectOrCode } from '../../../lib/json-lines'
import { untilNotDying } from '../../../lib/process-identity'
import { withFileLock } from '../power-lock'
import { MAX_SOCKET_PATH } from './run-files'

/** How long a claimer waits for another one (alive) that is claiming the same socket right now. */
const LISTEN_LOCK_WAIT_MS = 10_000

/**
 * Serves a 0600 UNIX socket at `path`, unless a live process serves it already (then `taken()`
 * is thrown). Probing it, removing a stale one and binding are one step under `lock`: two
 * claimers at once for a socket whose server died (the manager and a client each reviving it)
 * would otherwise both find it stale, and the later would remove the earlier's fresh socket and
 * bind its own, leaving two servers and a client that finds no socket. `owner` is the process
 * recorded as serving it, waited for while it is being torn down.
 */
export async function claimSocket(
  path: string,
  lock: string,
  accept: (socket: Socket) => void,
  taken: () => SmError,
  owner: () => { readonly pid: number } | undefined,
): Promise<Server> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) throw new SmError('SM_ERR_SERVER_PATH_TOO_LONG', { path })
  // The socket's last owner, killed a moment ago, may still accept on it: that is no live server.
  // Waited for before the lock, whose other claimers wait for it no longer than the dying take.
  await untilNotDying(owner())
  const server = await withFileLock(lock, LISTEN_LOCK_WAIT_MS, () => bind(path, accept, taken))
  // A live claimer has been at it all this while: it is the one that serves.
  if (!server) throw taken()
  return server
}

async function bind(path: string, accept: (socket: Socket) => void, taken: () => SmError): Promise<Server> {
  const probe = await connectOrCode(path)
  if (typeof probe !== 'string') {
    probe.destroy()
    throw taken()
  }
  if (probe === 'ECONNREFUSED') rmSync(path, { force: true })
  const server = createServer(accept)
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? taken() : error))
    server.listen(path, () => resolve())
  })
  // The socket is created with the umask; only the data directory's user may talk to it.
  chmodSync(path, 0o600)
  return server
}
