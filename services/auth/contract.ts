/** The auth service's contract: users, roles, sessions (JWT) and API tokens. */
import { z } from 'zod'
import { SERVER_RIGHTS, type ServerRight } from '../../kernel/command-doors'
import {
  type CommandsOf,
  command,
  defineCommands,
  defineEvents,
  type EventsOf,
  empty,
} from '../../kernel/contract-catalogue'

export { SERVER_RIGHTS, type ServerRight }

/** Roles, lowest first: each may do what the ones before it may. */
export const ROLES = ['user', 'moderator', 'admin'] as const
export type Role = (typeof ROLES)[number]
const role = z.enum(ROLES)

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}

/** Whether `role` may do what `required` may. */
export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required)
}

const right = z.enum(SERVER_RIGHTS)
/** An account's grants: each server it is held to, with its rights there (each list includes `view`). */
const grants = z.record(z.string(), z.array(right))
export type Grants = z.output<typeof grants>

/**
 * Whether an account is held to its grants (issue 34): it was granted rights on a server (even
 * if they were revoked since) and is not an admin (an admin has every right on every server). Such an account sees only its granted servers, may
 * do there what its rights cover, and elsewhere only what the `user` role may that names no server.
 */
export function heldToGrants(who: { readonly role: Role; readonly servers?: Grants }): boolean {
  return who.role !== 'admin' && who.servers !== undefined
}

/** Whether an account may see `server` at all: every server, or, held to grants, a granted one. */
export function seesServer(who: { readonly role: Role; readonly servers?: Grants }, server: string): boolean {
  return !heldToGrants(who) || Object.hasOwn(who.servers ?? {}, server)
}

/** The rights as a grant keeps them: known ones, each once, in SERVER_RIGHTS's order, `view` with any. */
export function grantOf(rights: readonly ServerRight[]): ServerRight[] {
  if (rights.length === 0) return []
  return SERVER_RIGHTS.filter((r) => r === 'view' || rights.includes(r))
}

/** The facts about users and API tokens (whoever remembers an identity forgets it on any of these). */
export const AUTH_FACTS = [
  'auth:user_created',
  'auth:user_role_changed',
  'auth:user_password_changed',
  'auth:user_deleted',
  'auth:token_created',
  'auth:token_revoked',
  'auth:session_revoked',
  'auth:two_factor_enabled',
  'auth:two_factor_disabled',
  'auth:server_access_changed',
  'auth:server_access_cleared',
] as const

/**
 * What changes who may do what: the auth facts, and a server's removal (its grants go with it).
 * Whoever remembers an identity forgets it on any of these.
 */
export const ACCESS_FACTS = [...AUTH_FACTS, 'servers:removed'] as const

/** Whether a fact of this type changes who may do what (one of ACCESS_FACTS). */
export const isAccessFact = (type: string): boolean => (ACCESS_FACTS as readonly string[]).includes(type)

/** Sign-in failures and lockouts: recorded for admins (`server-manager events`), never a password. */
export const SIGN_IN_FACTS = ['auth:sign_in_failed', 'auth:sign_in_locked', 'auth:recovery_code_used'] as const

const userRecord = z.object({
  username: z.string(),
  role,
  createdAt: z.string(),
  /** Whether signing in also needs a code from an authenticator app (or a recovery code). */
  twoFactor: z.boolean(),
  /**
   * Held to grants: the servers it was granted rights on, maybe none (absent: its role's reach on
   * every server; an admin's are kept but unused).
   */
  servers: grants.optional(),
})
export type UserRecord = Readonly<z.output<typeof userRecord>>

const apiTokenRecord = z.object({
  id: z.string(),
  name: z.string(),
  role,
  /** The account the token acts for: it never has more rights than this user has now. */
  owner: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().optional(),
})
export type ApiTokenRecord = Readonly<z.output<typeof apiTokenRecord>>

/** Who is calling, as the web server and the route guards see it. */
const identity = z.object({
  username: z.string(),
  /** The account's id: a later account of the same name has another. */
  userId: z.string(),
  /** The effective role: a token's role, capped by its owner's current role. */
  role,
  via: z.enum(['session', 'token']),
  /** The API token's id, when `via` is `token`. */
  tokenId: z.string().optional(),
  /** The session's CSRF value, when `via` is `session` (checked on cookie-authenticated writes). */
  csrf: z.string().optional(),
  /** The session's id, when `via` is `session` (what sign-out revokes). */
  sessionId: z.string().optional(),
  /** When the token stops being valid (epoch ms), if it expires. */
  expiresAt: z.number().optional(),
  /**
   * An admin's session without a second factor while `auth.require_two_factor_admins` is on: it
   * may only enrol (and sign out) until two-factor sign-in is on.
   */
  enrolOnly: z.literal(true).optional(),
  /** Held to these grants (see heldToGrants): the servers it may see and its rights on each. */
  servers: grants.optional(),
  /**
   * An API token made with a lower role than its owner's: held to that role on every route too,
   * so a grant never lets it do more than its role (a held moderator's `user` token is a `user`'s).
   */
  capped: z.literal(true).optional(),
})
export type Identity = Readonly<z.output<typeof identity>>

const session = z.object({
  accessToken: z.string(),
  tokenType: z.literal('bearer'),
  /** Seconds. */
  expiresIn: z.number(),
  csrf: z.string(),
  user: userRecord,
})
export type Session = Readonly<z.output<typeof session>>

export const authEvents = defineEvents(
  'auth',
  {
    /**
     * `id` names this very account: a session carries it, so a later account of the same name
     * is another account. (Facts from before ids replay with one derived from the name and time.)
     */
    'auth:user_created': z.object({ username: z.string(), role, id: z.string().optional() }),
    'auth:user_role_changed': z.object({ username: z.string(), role, previous: role }),
    /** The password changed; sessions issued before it end. (The hash is in the vault, never in a fact.) */
    'auth:user_password_changed': z.object({ username: z.string() }),
    'auth:user_deleted': z.object({ username: z.string() }),
    /**
     * `digest` is the SHA-256 of the token's secret part; the token itself is shown once and kept
     * nowhere. `ownerId` names the very account it acts for (facts from before it replay with the
     * id of the account that had the owner's name then; none, when no account had: the token never works).
     */
    'auth:token_created': z.object({
      id: z.string(),
      name: z.string(),
      role,
      owner: z.string(),
      ownerId: z.string().optional(),
      digest: z.string(),
      expiresAt: z.string().optional(),
    }),
    'auth:token_revoked': z.object({ id: z.string(), name: z.string() }),
    /** Signed out: the session `id` is refused until it would have expired anyway. */
    'auth:session_revoked': z.object({ id: z.string(), username: z.string(), expiresAt: z.string() }),
    /**
     * Two-factor sign-in turned on: signing in now also needs a code from the authenticator app
     * (or a recovery code). The secret and the recovery codes' digests are in the vault, never in a fact.
     */
    'auth:two_factor_enabled': z.object({ username: z.string() }),
    /** Two-factor sign-in turned off: by the user (with a code), or reset by an admin (`reset`). */
    'auth:two_factor_disabled': z.object({ username: z.string(), reset: z.boolean() }),
    /**
     * An admin set a user's rights on one server (`rights` empty: revoked; `previous`: before).
     * The first grant holds the account to its grants; revoking them, or a server's removal (its
     * `servers:removed` fact takes its grants), never gives it back every server's reach: only
     * `auth:server_access_cleared` does.
     */
    'auth:server_access_changed': z.object({
      username: z.string(),
      server: z.string(),
      rights: z.array(right),
      previous: z.array(right),
      by: z.string().optional(),
    }),
    /** An admin gave a user back their role's reach on every server: every grant of theirs is gone, and they are held to none. */
    'auth:server_access_cleared': z.object({ username: z.string(), by: z.string().optional() }),
    /** A recovery code signed a user in; it is spent. `remaining`: how many are left. */
    'auth:recovery_code_used': z.object({ username: z.string(), remaining: z.number() }),
    /** A sign-in (or a password check) with a wrong password or an unknown user name, or (`code`) a wrong second-factor code. */
    'auth:sign_in_failed': z.object({
      username: z.string(),
      client: z.string().optional(),
      code: z.boolean().optional(),
    }),
    /** A user name, a client, or the name at that client reached its limit of failed sign-ins; recorded once per window per key. */
    'auth:sign_in_locked': z.object({
      username: z.string(),
      client: z.string().optional(),
      /** Which limit: the name at this client's (`auth.login_max_failures`), or the ten times wider one of the name or the client. */
      limit: z.enum(['user_at_client', 'user', 'client']),
      seconds: z.number(),
    }),
  },
  {
    'auth:user_created': 'user_created', // formerly
    'auth:user_role_changed': 'user_role_changed', // formerly
    'auth:user_password_changed': 'user_password_changed', // formerly
    'auth:user_deleted': 'user_deleted', // formerly
    'auth:token_created': 'api_token_created', // formerly
    'auth:token_revoked': 'api_token_revoked', // formerly
    'auth:session_revoked': 'session_revoked', // formerly
    'auth:sign_in_failed': 'sign_in_failed', // formerly
    'auth:sign_in_locked': 'sign_in_locked', // formerly
  },
)

const credentials = { username: z.string(), password: z.string() }

/** A code from the authenticator app (6 digits) or a recovery code (`xxxxx-xxxxx`), as typed. */
const code = z.string().max(40)

/** The caller's own second factor: a signed-in session, the caller's own account. */
const twoFactorDoor = { tags: ['Users'], session: true, access: 'user', caller: 'username' } as const

const twoFactorStatus = z.object({
  enabled: z.boolean(),
  /** An enrolment was begun and awaits its confirming code. */
  pending: z.boolean(),
  /** Recovery codes not spent yet (0 when off). */
  recoveryCodesLeft: z.number(),
})

const serverAccess = z.object({ username: z.string(), server: z.string(), rights: z.array(right) })
const serverAccessEntry = z.object({ username: z.string(), role, rights: z.array(right) })
const userAccess = z.object({
  username: z.string(),
  role,
  /** Held to its grants: only the servers in `servers`, with their rights. */
  scoped: z.boolean(),
  servers: grants,
})

/** What every account route shares: a signed-in session only (a token never widens its own reach), names up to 80. */
const usersDoor = { tags: ['Users'], session: true, paramMax: 80 } as const

export const authCommands = defineCommands('auth', {
  /** True while no user exists (the first visit leads to setup). */
  'auth:setup_needed': command(empty, z.boolean()),
  /** `firstAdmin`: the setup path, allowed only while no user exists (creates an admin). */
  'auth:create_user': command(
    z.object({ ...credentials, role: role.optional(), firstAdmin: z.boolean().optional() }),
    userRecord,
    {
      http: {
        ...usersDoor,
        method: 'post',
        path: '/users',
        name: 'create_user',
        summary: 'Create a user',
        access: 'admin',
        input: z.object({
          username: z.string().min(1).max(80),
          password: z.string().min(1).max(1024),
          role: role.default('user'),
        }),
        status: 201,
        key: 'user',
        response: 'UserCreated',
        errors: { 409: 'A user of that name exists.' },
      },
    },
  ),
  /**
   * First-run setup: creates the first admin (only while no user exists) and opens its
   * session; no sign-in limit applies (the password was just set).
   */
  'auth:setup': command(z.object({ ...credentials, remember: z.boolean().optional() }), session),
  'auth:list_users': command(empty, z.array(userRecord), {
    http: {
      ...usersDoor,
      method: 'get',
      path: '/users',
      name: 'list_users',
      summary: 'Users and their roles',
      access: 'moderator',
      key: 'users',
      response: 'UserList',
    },
  }),
  'auth:set_role': command(z.object({ username: z.string(), role }), userRecord, {
    http: {
      ...usersDoor,
      method: 'put',
      path: '/users/:username/role',
      name: 'set_user_role',
      summary: "Change a user's role (the last admin stays)",
      access: 'admin',
      key: 'user',
      response: 'UserRoleSet',
      errors: { 404: 'No user of that name.', 409: 'The last admin stays an admin.' },
    },
  }),
  /** Sets anyone's password without the old one (admins, the local CLI). */
  'auth:reset_password': command(z.object(credentials), userRecord),
  /** A user changes their own password: the current one is checked like a sign-in (rate-limited). */
  'auth:change_password': command(
    z.object({ ...credentials, current: z.string(), client: z.string().optional() }),
    userRecord,
  ),
  'auth:delete_user': command(z.object({ username: z.string() }), userRecord, {
    http: {
      ...usersDoor,
      method: 'delete',
      path: '/users/:username',
      name: 'delete_user',
      summary: 'Delete a user (and their API tokens)',
      access: 'admin',
      key: 'user',
      response: 'UserDeleted',
      errors: { 404: 'No user of that name.', 409: 'The last admin cannot be deleted.' },
    },
  }),
  /**
   * Checks a password (rate-limited per user and per client) and, for an account with two-factor
   * sign-in, a code (the same limit), and opens a session.
   */
  'auth:login': command(
    z.object({
      ...credentials,
      code: code.optional(),
      remember: z.boolean().optional(),
      client: z.string().optional(),
    }),
    session,
  ),
  'auth:two_factor_status': command(z.object({ username: z.string() }), twoFactorStatus, {
    http: {
      ...twoFactorDoor,
      method: 'get',
      path: '/account/two-factor',
      name: 'two_factor_status',
      summary: 'Whether your two-factor sign-in is on, and how many recovery codes are left',
      response: 'TwoFactorStatus',
    },
  }),
  /**
   * Begins (or begins again) the caller's enrolment: a new secret, kept pending until a code
   * from it confirms it. The secret is shown here only, as text, an otpauth:// URI and a QR code.
   */
  'auth:two_factor_begin': command(
    z.object({ username: z.string() }),
    z.object({ secret: z.string(), uri: z.string(), qrSvg: z.string() }),
    {
      http: {
        ...twoFactorDoor,
        method: 'post',
        path: '/account/two-factor',
        name: 'two_factor_begin',
        summary:
          'Begin two-factor enrolment: a secret for your authenticator app (text, otpauth:// URI, QR code as SVG)',
        replyNames: { qrSvg: 'qr_svg' },
        response: 'TwoFactorBegun',
        errors: { 409: 'Two-factor sign-in is on already: turn it off first.' },
      },
    },
  ),
  /**
   * Confirms the pending secret with a code from it: two-factor sign-in is on, the recovery codes
   * are shown once, and every session of the account ends (one opened with the password alone
   * must not outlive it).
   */
  'auth:two_factor_confirm': command(
    z.object({ username: z.string(), code }),
    z.object({ recoveryCodes: z.array(z.string()) }),
    {
      http: {
        ...twoFactorDoor,
        method: 'post',
        path: '/account/two-factor/confirm',
        name: 'two_factor_confirm',
        summary:
          'Confirm enrolment with a code from the app: two-factor sign-in is on; the recovery codes are shown once',
        input: z.object({ code: code.min(1) }),
        replyNames: { recoveryCodes: 'recovery_codes' },
        message:
          'Two-factor sign-in is on, and your sessions ended: sign in again with a code. Keep the recovery codes somewhere safe: each signs you in once.',
        response: 'TwoFactorConfirmed',
        errors: { 403: 'The code is wrong (or expired): type the current one.', 409: 'No enrolment was begun.' },
      },
    },
  ),
  /** The caller turns their own second factor off, proving it with a current code (or a recovery code). */
  'auth:two_factor_disable': command(z.object({ username: z.string(), code }), userRecord, {
    http: {
      ...twoFactorDoor,
      method: 'post',
      path: '/account/two-factor/disable',
      name: 'two_factor_disable',
      summary: 'Turn your two-factor sign-in off, with a current code (or a recovery code)',
      input: z.object({ code: code.min(1) }),
      key: 'user',
      response: 'TwoFactorDisabled',
      errors: { 403: 'The code is wrong, expired or used.', 409: 'Two-factor sign-in is not on.' },
    },
  }),
  /** An admin (or the local CLI) turns a user's second factor off: the user who lost their phone and codes signs in with the password again. */
  'auth:two_factor_reset': command(z.object({ username: z.string(), by: z.string().optional() }), userRecord, {
    http: {
      ...usersDoor,
      caller: 'by',
      method: 'delete',
      path: '/users/:username/two-factor',
      name: 'reset_user_two_factor',
      summary: "Turn a user's two-factor sign-in off (they sign in with their password, and may enrol again)",
      access: 'admin',
      key: 'user',
      response: 'UserTwoFactorReset',
      errors: {
        404: 'No user of that name.',
        409: 'Two-factor sign-in is not on for that user, or that user is you (turn your own off with a code).',
      },
    },
  }),
  /**
   * Sets a user's rights on one server (replacing what they had there; none revokes it). The
   * server must exist; an admin has every right already (SM_ERR_AUTH_ADMIN_HAS_ALL). A session's
   * or a token's reach changes at its next request, and a stream that lost a topic ends.
   */
  'auth:set_server_access': command(
    z.object({
      username: z.string(),
      server: z.string(),
      rights: z.array(right).max(20),
      /** `set` (the default): these are the rights; `add`: these join the ones held; `remove`: these go (`view`: all). */
      mode: z.enum(['set', 'add', 'remove']).optional(),
      by: z.string().optional(),
    }),
    serverAccess,
    {
      http: [
        {
          ...usersDoor,
          caller: 'by',
          method: 'put',
          path: '/users/:username/servers/:server',
          name: 'set_user_server_access',
          summary: "Set a user's rights on one server (an empty list revokes them)",
          access: 'admin',
          paramMax: { username: 80, server: 200 },
          input: z.object({ rights: z.array(right).max(20) }),
          key: 'access',
          response: 'UserServerAccessSet',
          errors: {
            404: 'No user, or no server, of that name.',
            409: 'That user is an admin: admins have every right on every server.',
          },
        },
        {
          ...usersDoor,
          caller: 'by',
          method: 'delete',
          path: '/users/:username/servers/:server',
          name: 'revoke_user_server_access',
          summary: "Revoke a user's rights on one server",
          access: 'admin',
          paramMax: { username: 80, server: 200 },
          fixed: { rights: [] },
          key: 'access',
          response: 'UserServerAccessRevoked',
          errors: { 404: 'No user, or no server, of that name.', 409: 'That user is an admin.' },
        },
      ],
    },
  ),
  /** Gives a user back their role's reach on every server: their grants go, and they are held to none. */
  'auth:clear_server_access': command(z.object({ username: z.string(), by: z.string().optional() }), userRecord, {
    http: {
      ...usersDoor,
      caller: 'by',
      method: 'delete',
      path: '/users/:username/servers',
      name: 'clear_user_server_access',
      summary: "Give a user back their role's reach on every server (their grants go)",
      access: 'admin',
      key: 'user',
      response: 'UserServerAccessCleared',
      errors: { 404: 'No user of that name.' },
    },
  }),
  /** A user's reach: whether held to grants, and the rights on each granted server. */
  'auth:user_access': command(z.object({ username: z.string() }), userAccess, {
    http: {
      ...usersDoor,
      method: 'get',
      path: '/users/:username/servers',
      name: 'user_server_access',
      summary: "A user's rights on each server granted (none: their role's reach on every server)",
      access: 'admin',
      key: 'access',
      response: 'UserServerAccess',
      errors: { 404: 'No user of that name.' },
    },
    api: {
      name: 'getUserAccess',
      kind: 'read',
      params: ['username'],
      description:
        "A user's reach: `role`, `scoped` (held to grants: only the servers in `servers`, with the rights listed for each) or not (the role's reach on every server)",
    },
  }),
  /** The accounts granted rights on one server, with their rights there. */
  'auth:server_access': command(z.object({ server: z.string() }), z.array(serverAccessEntry), {
    http: {
      ...usersDoor,
      method: 'get',
      path: '/servers/:name/access',
      name: 'server_access',
      summary: 'The accounts granted rights on this server, with their rights (admins have every right)',
      access: 'admin',
      params: { name: 'server' },
      key: 'access',
      response: 'ServerAccess',
    },
  }),
  /** Ends a session (a JWT) for good: recorded, so it stays refused after a restart. */
  'auth:logout': command(z.object({ token: z.string() }), z.object({ username: z.string() })),
  /** A session token (JWT) or an API token → who it is. */
  'auth:verify': command(z.object({ token: z.string() }), identity),
  /** A new API token; `token` is the only time its secret is shown. */
  'auth:create_token': command(
    z.object({
      name: z.string(),
      role,
      owner: z.string().optional(),
      ownerId: z.string().optional(),
      expiresDays: z.number().optional(),
    }),
    z.object({ token: z.string(), record: apiTokenRecord }),
  ),
  'auth:list_tokens': command(empty, z.array(apiTokenRecord)),
  'auth:revoke_token': command(z.object({ id: z.string() }), apiTokenRecord),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof authEvents> {}

  interface CommandMap extends CommandsOf<typeof authCommands> {}
}
