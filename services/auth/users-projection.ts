import { createHash } from 'node:crypto'
import type { Projection, Sql } from '../events/contract'
import type { ApiTokenRecord, Grants, Role, ServerRight, UserRecord } from './contract'

import { ACCESS_FACTS } from './contract'

/** An account as it is shown (its id and password epoch stay inside). */
export function publicUser({ username, role, createdAt, twoFactor, servers }: UserRecord): UserRecord {
  return { username, role, createdAt, twoFactor, ...(servers ? { servers } : {}) }
}

/** A stored token: its record and the digest of its secret. */
export interface StoredToken extends ApiTokenRecord {
  readonly digest: string
  /** The id of the account it acts for; undefined when that account was gone when it was recorded. */
  readonly ownerId: string | undefined
}

export interface StoredUser extends UserRecord {
  /** This very account: sessions name it, so a later account of the same name does not accept them. */
  readonly id: string
  /** Bumped by each password change: sessions carry it, and an older one is refused. */
  readonly epoch: number
}

export interface AuthState {
  readonly users: StoredUser[]
  readonly tokens: StoredToken[]
  /** Ids of signed-out sessions that have not expired yet. */
  readonly revoked: ReadonlySet<string>
}

/**
 * The id of an account created before accounts had ids: derived from its name and creation
 * time, which a replay of its `auth:user_created` fact and a snapshot of its row both know.
 */
function derivedUserId(username: string, created: string): string {
  return `u-${createHash('sha256').update(`${username.toLowerCase()}\n${created}`).digest('base64url').slice(0, 22)}`
}

/**
 * Users, API tokens and signed-out sessions as a projection of the auth facts. Password hashes
 * live in the vault. (Version 2 has new tables: `accounts` with ids; the version 1 `users` table
 * is dropped. Version 3 binds tokens to their owner's account id: `account_tokens` replaces
 * `api_tokens`. Version 4 adds `two_factor`: the accounts that sign in with a second factor; version 5 ends
 * an account's sessions when it turns two-factor sign-in on; version 6 adds `server_access`: each
 * account's rights on the servers it was granted, gone with the account or the server, and
 * `held_accounts`: the accounts held to their grants, from the first until cleared.)
 */
export const usersProjection: Projection = {
  name: 'users',
  version: 6,
  types: ACCESS_FACTS,
  schema: [
    'DROP TABLE IF EXISTS users',
    `CREATE TABLE IF NOT EXISTS accounts (
       username TEXT PRIMARY KEY COLLATE NOCASE, id TEXT NOT NULL, role TEXT NOT NULL, created TEXT NOT NULL,
       epoch INTEGER NOT NULL
     )`,
    'DROP TABLE IF EXISTS api_tokens',
    `CREATE TABLE IF NOT EXISTS account_tokens (
       id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, owner TEXT NOT NULL, owner_id TEXT,
       digest TEXT NOT NULL, created TEXT NOT NULL, expires TEXT
     )`,
    'CREATE TABLE IF NOT EXISTS revoked_sessions (id TEXT PRIMARY KEY, expires TEXT NOT NULL)',
    'CREATE TABLE IF NOT EXISTS two_factor (username TEXT PRIMARY KEY COLLATE NOCASE)',
    'CREATE TABLE IF NOT EXISTS held_accounts (username TEXT PRIMARY KEY COLLATE NOCASE)',
    `CREATE TABLE IF NOT EXISTS server_access (
       username TEXT NOT NULL COLLATE NOCASE, server TEXT NOT NULL, rights TEXT NOT NULL, PRIMARY KEY (username, server)
     )`,
  ],

  async apply(sql, events) {
    for (const event of events) {
      const p = event.payload as Record<string, string>
      switch (event.type) {
        case 'auth:user_created':
          await sql.run('INSERT OR REPLACE INTO accounts (username, id, role, created, epoch) VALUES (?, ?, ?, ?, 0)', [
            p.username,
            p.id ?? derivedUserId(String(p.username), event.time),
            p.role,
            event.time,
          ])
          break
        case 'auth:user_role_changed':
          await sql.run('UPDATE accounts SET role = ? WHERE username = ?', [p.role, p.username])
          break
        case 'auth:user_password_changed':
          await sql.run('UPDATE accounts SET epoch = epoch + 1 WHERE username = ?', [p.username])
          break
        case 'auth:user_deleted':
          await sql.run('DELETE FROM accounts WHERE username = ?', [p.username])
          await sql.run('DELETE FROM account_tokens WHERE owner = ? COLLATE NOCASE', [p.username])
          await sql.run('DELETE FROM two_factor WHERE username = ?', [p.username])
          await sql.run('DELETE FROM server_access WHERE username = ?', [p.username])
          await sql.run('DELETE FROM held_accounts WHERE username = ?', [p.username])
          break
        case 'auth:server_access_cleared':
          await sql.run('DELETE FROM server_access WHERE username = ?', [p.username])
          await sql.run('DELETE FROM held_accounts WHERE username = ?', [p.username])
          break
        case 'auth:server_access_changed': {
          const rights = (event.payload as { rights: readonly ServerRight[] }).rights
          // Held from the first grant on, until cleared: a revocation never widens an account's reach.
          await sql.run('INSERT OR IGNORE INTO held_accounts (username) VALUES (?)', [p.username])
          if (rights.length === 0)
            await sql.run('DELETE FROM server_access WHERE username = ? AND server = ?', [p.username, p.server])
          else
            await sql.run('INSERT OR REPLACE INTO server_access (username, server, rights) VALUES (?, ?, ?)', [
              p.username,
              p.server,
              rights.join(','),
            ])
          break
        }
        case 'servers:removed':
          // A later server of the same name is another server: no grant carries over to it.
          await sql.run('DELETE FROM server_access WHERE server = ?', [p.name])
          break
        case 'auth:two_factor_enabled':
          await sql.run('INSERT OR REPLACE INTO two_factor (username) VALUES (?)', [p.username])
          // Sessions opened with the password alone end: from now on, only a code opens one.
          await sql.run('UPDATE accounts SET epoch = epoch + 1 WHERE username = ?', [p.username])
          break
        case 'auth:two_factor_disabled':
          await sql.run('DELETE FROM two_factor WHERE username = ?', [p.username])
          break
        case 'auth:token_created':
          await sql.run(
            'INSERT OR REPLACE INTO account_tokens (id, name, role, owner, owner_id, digest, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [
              p.id,
              p.name,
              p.role,
              p.owner,
              p.ownerId ?? (await ownerIdOf(sql, String(p.owner))),
              p.digest,
              event.time,
              p.expiresAt ?? null,
            ],
          )
          break
        case 'auth:token_revoked':
          await sql.run('DELETE FROM account_tokens WHERE id = ?', [p.id])
          break
        case 'auth:session_revoked':
          // Sessions that expired by now need no revocation: the list stays as short as the live sessions.
          await sql.run('DELETE FROM revoked_sessions WHERE expires <= ?', [event.time])
          await sql.run('INSERT OR REPLACE INTO revoked_sessions (id, expires) VALUES (?, ?)', [p.id, p.expiresAt])
          break
      }
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM accounts')
    await sql.run('DELETE FROM account_tokens')
    await sql.run('DELETE FROM revoked_sessions')
    await sql.run('DELETE FROM two_factor')
    await sql.run('DELETE FROM server_access')
    await sql.run('DELETE FROM held_accounts')
  },

  async snapshot(sql) {
    return {
      users: await sql.all('SELECT * FROM accounts ORDER BY username'),
      tokens: await sql.all('SELECT * FROM account_tokens ORDER BY id'),
      revoked: await sql.all('SELECT * FROM revoked_sessions ORDER BY id'),
      twoFactor: await sql.all('SELECT * FROM two_factor ORDER BY username'),
      serverAccess: await sql.all('SELECT * FROM server_access ORDER BY username, server'),
      held: await sql.all('SELECT * FROM held_accounts ORDER BY username'),
    }
  },

  async restore(sql, state) {
    const { users, tokens, revoked, twoFactor, serverAccess, held } = state as {
      held?: Record<string, unknown>[]
      users: Record<string, unknown>[]
      tokens: Record<string, unknown>[]
      revoked?: Record<string, unknown>[]
      twoFactor?: Record<string, unknown>[]
      serverAccess?: Record<string, unknown>[]
    }
    for (const u of users)
      await sql.run('INSERT OR REPLACE INTO accounts (username, id, role, created, epoch) VALUES (?, ?, ?, ?, ?)', [
        u.username,
        // A snapshot from version 1 has no ids: the same one a replay of the fact would derive.
        u.id ?? derivedUserId(String(u.username), String(u.created)),
        u.role,
        u.created,
        u.epoch,
      ])
    for (const t of tokens)
      await sql.run(
        'INSERT OR REPLACE INTO account_tokens (id, name, role, owner, owner_id, digest, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [
          t.id,
          t.name,
          t.role,
          t.owner,
          // A snapshot from before version 3 has no owner ids: its accounts (restored above) have.
          'owner_id' in t ? t.owner_id : await ownerIdOf(sql, String(t.owner)),
          t.digest,
          t.created,
          t.expires,
        ],
      )
    for (const r of revoked ?? [])
      await sql.run('INSERT OR REPLACE INTO revoked_sessions (id, expires) VALUES (?, ?)', [r.id, r.expires])
    for (const t of twoFactor ?? [])
      await sql.run('INSERT OR REPLACE INTO two_factor (username) VALUES (?)', [t.username])
    for (const h of held ?? [])
      await sql.run('INSERT OR REPLACE INTO held_accounts (username) VALUES (?)', [h.username])
    for (const a of serverAccess ?? [])
      await sql.run('INSERT OR REPLACE INTO server_access (username, server, rights) VALUES (?, ?, ?)', [
        a.username,
        a.server,
        a.rights,
      ])
  },
}

/** The id of the account named `username` now (a token recorded before tokens named ids acts for it). */
async function ownerIdOf(sql: Sql, username: string): Promise<string | null> {
  return (await sql.get<{ id: string }>('SELECT id FROM accounts WHERE username = ?', [username]))?.id ?? null
}

export async function readAuthState(sql: Sql): Promise<AuthState> {
  const users = await sql.all<{
    username: string
    id: string
    role: Role
    created: string
    epoch: number
    two_factor: number
  }>(
    `SELECT username, id, role, created, epoch, username IN (SELECT username FROM two_factor) AS two_factor
     FROM accounts ORDER BY created, username`,
  )
  const tokens = await sql.all<{
    id: string
    name: string
    role: Role
    owner: string
    owner_id: string | null
    digest: string
    created: string
    expires: string | null
  }>('SELECT * FROM account_tokens ORDER BY created, id')
  const revoked = await sql.all<{ id: string }>('SELECT id FROM revoked_sessions WHERE expires > ?', [
    new Date().toISOString(),
  ])
  const granted = new Map<string, Record<string, ServerRight[]>>()
  for (const h of await sql.all<{ username: string }>('SELECT username FROM held_accounts'))
    granted.set(h.username.toLowerCase(), {})
  for (const a of await sql.all<{ username: string; server: string; rights: string }>(
    'SELECT username, server, rights FROM server_access ORDER BY server',
  )) {
    // Every account with a grant is held (held_accounts, read above): its map is there.
    const held = granted.get(a.username.toLowerCase())
    if (held) held[a.server] = a.rights.split(',') as ServerRight[]
  }
  return {
    users: users.map((u) => {
      const servers: Grants | undefined = granted.get(u.username.toLowerCase())
      return {
        username: u.username,
        id: u.id,
        role: u.role,
        createdAt: u.created,
        epoch: u.epoch,
        twoFactor: u.two_factor === 1,
        ...(servers ? { servers } : {}),
      }
    }),
    tokens: tokens.map((t) => ({
      id: t.id,
      name: t.name,
      role: t.role,
      owner: t.owner,
      ownerId: t.owner_id ?? undefined,
      digest: t.digest,
      createdAt: t.created,
      expiresAt: t.expires ?? undefined,
    })),
    revoked: new Set(revoked.map((r) => r.id)),
  }
}
