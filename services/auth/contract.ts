/** The auth service's contract: users, roles, sessions (JWT) and API tokens. */

/** Roles, lowest first: each may do what the ones before it may. */
export const ROLES = ['user', 'moderator', 'admin'] as const
export type Role = (typeof ROLES)[number]

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}

/** Whether `role` may do what `required` may. */
export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required)
}

/** The facts about users and API tokens (whoever remembers an identity forgets it on any of these). */
export const AUTH_FACTS = [
  'user_created',
  'user_role_changed',
  'user_password_changed',
  'user_deleted',
  'api_token_created',
  'api_token_revoked',
  'session_revoked',
] as const

/** Sign-in failures and lockouts: recorded for admins (`server-manager events`), never a password. */
export const SIGN_IN_FACTS = ['sign_in_failed', 'sign_in_locked'] as const

export interface UserRecord {
  readonly username: string
  readonly role: Role
  readonly createdAt: string
}

export interface ApiTokenRecord {
  readonly id: string
  readonly name: string
  readonly role: Role
  /** The account the token acts for: it never has more rights than this user has now. */
  readonly owner: string
  readonly createdAt: string
  readonly expiresAt: string | undefined
}

/** Who is calling, as the web server and the route guards see it. */
export interface Identity {
  readonly username: string
  /** The account's id: a later account of the same name has another. */
  readonly userId: string
  /** The effective role: a token's role, capped by its owner's current role. */
  readonly role: Role
  readonly via: 'session' | 'token'
  /** The API token's id, when `via` is `token`. */
  readonly tokenId?: string
  /** The session's CSRF value, when `via` is `session` (checked on cookie-authenticated writes). */
  readonly csrf?: string
  /** The session's id, when `via` is `session` (what sign-out revokes). */
  readonly sessionId?: string
  /** When the token stops being valid (epoch ms), if it expires. */
  readonly expiresAt?: number
}

export interface Session {
  readonly accessToken: string
  readonly tokenType: 'bearer'
  /** Seconds. */
  readonly expiresIn: number
  readonly csrf: string
  readonly user: UserRecord
}

declare module '../../kernel/maps' {
  interface EventMap {
    /**
     * `id` names this very account: a session carries it, so a later account of the same name
     * is another account. (Facts from before ids replay with one derived from the name and time.)
     */
    user_created: { readonly username: string; readonly role: Role; readonly id?: string }
    user_role_changed: { readonly username: string; readonly role: Role; readonly previous: Role }
    /** The password changed; sessions issued before it end. (The hash is in the vault, never in a fact.) */
    user_password_changed: { readonly username: string }
    user_deleted: { readonly username: string }
    /**
     * `digest` is the SHA-256 of the token's secret part; the token itself is shown once and kept
     * nowhere. `ownerId` names the very account it acts for (facts from before it replay with the
     * id of the account that had the owner's name then; none, when no account had: the token never works).
     */
    api_token_created: {
      readonly id: string
      readonly name: string
      readonly role: Role
      readonly owner: string
      readonly ownerId?: string
      readonly digest: string
      readonly expiresAt: string | undefined
    }
    api_token_revoked: { readonly id: string; readonly name: string }
    /** Signed out: the session `id` is refused until it would have expired anyway. */
    session_revoked: { readonly id: string; readonly username: string; readonly expiresAt: string }
    /** A sign-in (or a password check) with a wrong password or an unknown user name. */
    sign_in_failed: { readonly username: string; readonly client: string | undefined }
    /** A user name, a client, or the name at that client reached its limit of failed sign-ins; recorded once per window per key. */
    sign_in_locked: {
      readonly username: string
      readonly client: string | undefined
      /** Which limit: the name at this client's (`auth.login_max_failures`), or the ten times wider one of the name or the client. */
      readonly limit: 'user_at_client' | 'user' | 'client'
      readonly seconds: number
    }
  }

  interface CommandMap {
    /** True while no user exists (the first visit leads to setup). */
    'auth:setup_needed': { payload: Record<string, never>; reply: boolean }
    /** `firstAdmin`: the setup path, allowed only while no user exists (creates an admin). */
    'auth:create_user': {
      payload: { username: string; password: string; role?: Role; firstAdmin?: boolean }
      reply: UserRecord
    }
    /**
     * First-run setup: creates the first admin (only while no user exists) and opens its
     * session; no sign-in limit applies (the password was just set).
     */
    'auth:setup': { payload: { username: string; password: string; remember?: boolean }; reply: Session }
    'auth:list_users': { payload: Record<string, never>; reply: UserRecord[] }
    'auth:set_role': { payload: { username: string; role: Role }; reply: UserRecord }
    /** Sets anyone's password without the old one (admins, the local CLI). */
    'auth:reset_password': { payload: { username: string; password: string }; reply: UserRecord }
    /** A user changes their own password: the current one is checked like a sign-in (rate-limited). */
    'auth:change_password': {
      payload: { username: string; current: string; password: string; client?: string }
      reply: UserRecord
    }
    'auth:delete_user': { payload: { username: string }; reply: UserRecord }
    /** Checks a password (rate-limited per user and per client) and opens a session. */
    'auth:login': {
      payload: { username: string; password: string; remember?: boolean; client?: string }
      reply: Session
    }
    /** Ends a session (a JWT) for good: recorded, so it stays refused after a restart. */
    'auth:logout': { payload: { token: string }; reply: { username: string } }
    /** A session token (JWT) or an API token → who it is. */
    'auth:verify': { payload: { token: string }; reply: Identity }
    /** A new API token; `token` is the only time its secret is shown. */
    'auth:create_token': {
      payload: { name: string; role: Role; owner?: string; ownerId?: string; expiresDays?: number }
      reply: { token: string; record: ApiTokenRecord }
    }
    'auth:list_tokens': { payload: Record<string, never>; reply: ApiTokenRecord[] }
    'auth:revoke_token': { payload: { id: string }; reply: ApiTokenRecord }
  }
}
