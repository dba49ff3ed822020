import type { Projection, Sql } from '../events/contract'
import type { ApiTokenRecord, Role, UserRecord } from './contract'

import { AUTH_FACTS } from './contract'

/** A stored token: its record, the digest of its secret, and the owner's session epoch is not needed. */
export interface StoredToken extends ApiTokenRecord {
  readonly digest: string
}

export interface StoredUser extends UserRecord {
  /** Bumped by each password change: sessions carry it, and an older one is refused. */
  readonly epoch: number
}

/** Users and API tokens as a projection of the auth facts. Password hashes live in the vault. */
export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  types: AUTH_FACTS,
  schema: [
    `CREATE TABLE IF NOT EXISTS users (
       username TEXT PRIMARY KEY COLLATE NOCASE, role TEXT NOT NULL, created TEXT NOT NULL, epoch INTEGER NOT NULL
     )`,
    `CREATE TABLE IF NOT EXISTS api_tokens (
       id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, owner TEXT NOT NULL,
       digest TEXT NOT NULL, created TEXT NOT NULL, expires TEXT
     )`,
  ],

  async apply(sql, events) {
    for (const event of events) {
      const p = event.payload as Record<string, string>
      switch (event.type) {
        case 'user_created':
          await sql.run('INSERT OR REPLACE INTO users (username, role, created, epoch) VALUES (?, ?, ?, 0)', [
            p.username,
            p.role,
            event.time,
          ])
          break
        case 'user_role_changed':
          await sql.run('UPDATE users SET role = ? WHERE username = ?', [p.role, p.username])
          break
        case 'user_password_changed':
          await sql.run('UPDATE users SET epoch = epoch + 1 WHERE username = ?', [p.username])
          break
        case 'user_deleted':
          await sql.run('DELETE FROM users WHERE username = ?', [p.username])
          await sql.run('DELETE FROM api_tokens WHERE owner = ? COLLATE NOCASE', [p.username])
          break
        case 'api_token_created':
          await sql.run(
            'INSERT OR REPLACE INTO api_tokens (id, name, role, owner, digest, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?)',
            [p.id, p.name, p.role, p.owner, p.digest, event.time, p.expiresAt ?? null],
          )
          break
        case 'api_token_revoked':
          await sql.run('DELETE FROM api_tokens WHERE id = ?', [p.id])
          break
      }
    }
  },

  async reset(sql) {
    await sql.run('DELETE FROM users')
    await sql.run('DELETE FROM api_tokens')
  },

  async snapshot(sql) {
    return {
      users: await sql.all('SELECT * FROM users'),
      tokens: await sql.all('SELECT * FROM api_tokens'),
    }
  },

  async restore(sql, state) {
    const { users, tokens } = state as { users: Record<string, unknown>[]; tokens: Record<string, unknown>[] }
    for (const u of users)
      await sql.run('INSERT OR REPLACE INTO users (username, role, created, epoch) VALUES (?, ?, ?, ?)', [
        u.username,
        u.role,
        u.created,
        u.epoch,
      ])
    for (const t of tokens)
      await sql.run(
        'INSERT OR REPLACE INTO api_tokens (id, name, role, owner, digest, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [t.id, t.name, t.role, t.owner, t.digest, t.created, t.expires],
      )
  },
}

export async function readAuthState(sql: Sql): Promise<{ users: StoredUser[]; tokens: StoredToken[] }> {
  const users = await sql.all<{ username: string; role: Role; created: string; epoch: number }>(
    'SELECT username, role, created, epoch FROM users ORDER BY created, username',
  )
  const tokens = await sql.all<{
    id: string
    name: string
    role: Role
    owner: string
    digest: string
    created: string
    expires: string | null
  }>('SELECT * FROM api_tokens ORDER BY created, id')
  return {
    users: users.map((u) => ({ username: u.username, role: u.role, createdAt: u.created, epoch: u.epoch })),
    tokens: tokens.map((t) => ({
      id: t.id,
      name: t.name,
      role: t.role,
      owner: t.owner,
      digest: t.digest,
      createdAt: t.created,
      expiresAt: t.expires ?? undefined,
    })),
  }
}
