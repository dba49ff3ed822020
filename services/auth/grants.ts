import { type BusScope, SmError } from '../../kernel'
import { grantOf, heldToGrants, type ServerRight } from './contract'
import { type AuthState, publicUser, type StoredUser } from './users-projection'

/** What the grants take of the auth service: its accounts, and its one-change-at-a-time step. */
export interface GrantsHost {
  user(username: string): Promise<StoredUser>
  state(): Promise<AuthState>
  exclusive<T>(change: () => Promise<T>): Promise<T>
}

/**
 * Per-server access (issue 34 item 1; docs/architecture.md, "Per-server access"): an admin sets a
 * user's rights on one server (`auth:server_access_changed`; the first holds the account to its
 * grants), gives back every server's reach (`auth:server_access_cleared`), and anyone asks a
 * user's reach or a server's grantees. The checks are the web server's (route.ts).
 */
export function handleGrants(bus: BusScope, auth: GrantsHost): void {
  bus.handle('auth:set_server_access', (request) => setServerAccess(bus, auth, request))
  bus.handle('auth:clear_server_access', async ({ username, by }) =>
    auth.exclusive(async () => {
      const user = await auth.user(username)
      if (user.servers) await bus.emit('auth:server_access_cleared', { username: user.username, ...(by ? { by } : {}) })
      return publicUser(await auth.user(user.username))
    }),
  )
  bus.handle('auth:user_access', async ({ username }) => {
    const user = await auth.user(username)
    return { username: user.username, role: user.role, scoped: heldToGrants(user), servers: user.servers ?? {} }
  })
  bus.handle('auth:server_access', async ({ server }) =>
    (await auth.state()).users.flatMap((u) =>
      u.servers?.[server] ? [{ username: u.username, role: u.role, rights: [...u.servers[server]] }] : [],
    ),
  )
}

/** Sets a user's rights on one server (none: revoked); an admin has every right already. */
function setServerAccess(
  bus: BusScope,
  auth: GrantsHost,
  request: {
    username: string
    server: string
    rights: readonly ServerRight[]
    mode?: 'set' | 'add' | 'remove'
    by?: string
  },
): Promise<{ username: string; server: string; rights: ServerRight[] }> {
  return auth.exclusive(async () => {
    const user = await auth.user(request.username)
    if (user.role === 'admin') throw new SmError('SM_ERR_AUTH_ADMIN_HAS_ALL', { username: user.username })
    const server = (await bus.request('servers:list', {})).find((s) => s.name === request.server)?.name
    if (server === undefined) throw new SmError('SM_ERR_SERVER_NOT_FOUND', { server: String(request.server), hint: '' })
    const previous = [...(user.servers?.[server] ?? [])]
    // Merged with what is held inside the change's own step: two changes at once both count.
    const asked = request.rights
    const rights = grantOf(
      request.mode === 'add'
        ? [...previous, ...asked]
        : request.mode === 'remove'
          ? asked.includes('view')
            ? []
            : previous.filter((r) => !asked.includes(r))
          : asked,
    )
    if (previous.join() !== rights.join())
      await bus.emit('auth:server_access_changed', {
        username: user.username,
        server,
        rights,
        previous,
        ...(request.by ? { by: request.by } : {}),
      })
    return { username: user.username, server, rights }
  })
}
