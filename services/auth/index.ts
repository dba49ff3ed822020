import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { type BusScope, declaredService, type Service, SmError } from '../../kernel'
import { BoundedMap } from '../../lib/bounded-map'
import { PROJECTIONS, type Projections } from '../events/contract'
import {
  ACCESS_FACTS,
  type ApiTokenRecord,
  AUTH_FACTS,
  type Grants,
  heldToGrants,
  type Identity,
  isAccessFact,
  isRole,
  type Role,
  roleAtLeast,
  type Session,
  SIGN_IN_FACTS,
  type UserRecord,
} from './contract'
import { authDeclaration } from './declarations'
import { handleGrants } from './grants'
import { decoyHash, hashPassword, verifyPassword } from './passwords'
import { FailureLimiter } from './rate-limit'
import { SecondFactors } from './two-factor'
import {
  type AuthState,
  publicUser,
  readAuthState,
  type StoredToken,
  type StoredUser,
  usersProjection,
} from './users-projection'

/**
 * jose, loaded on the first session signed or checked: a one-shot command (most never see a
 * session) does not pay its load, about a tenth of a cold command's start (issue 36). Later calls
 * are require's own cache (about 0.2 µs).
 */
const jose = (): typeof import('jose') => require('jose')

export type * from './contract'
export { isRole, ROLES, roleAtLeast } from './contract'

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/
const TOKEN_PREFIX = 'smt_'
const JWT_KEY = 'auth.jwt_key'
const passwordKey = (username: string) => `auth.password:${username.toLowerCase()}`
/** The user of that name: user names are unique without regard to case. */
const named = (users: readonly StoredUser[], username: string) =>
  users.find((u) => u.username.toLowerCase() === username.toLowerCase())
/** The claims a session must carry: when it ends, its id (what sign-out revokes) and its account's id. */
const SESSION_CLAIMS = ['exp', 'jti', 'uid', 'sub'] as const
/** Session tokens whose signature was checked, remembered (oldest forgotten first). */
const CHECKED_TOKENS = 10_000
/** How much wider the per-user-name and per-client sign-in limits are than the per-pair one. */
const WIDE_LIMIT = 10

interface Claims {
  readonly sub?: string
  /** The account's id: a later account of the same name is another account. */
  readonly uid?: unknown
  /** The session's id (what sign-out revokes). */
  readonly jti?: string
  readonly csrf?: unknown
  readonly ep?: unknown
  readonly exp?: number
}

/**
 * Users, roles, sessions and API tokens. Users and tokens are facts with a projection; password
 * hashes (scrypt) and the JWT signing key live in the event store's vault, so no fact, log line,
 * `events` output or plugin ever carries them. Sessions are HS256 JWTs; API tokens are random
 * secrets stored as SHA-256 digests, shown once.
 */
export function authService(): Service {
  return {
    ...declaredService(authDeclaration),
    async start({ bus, registry }) {
      const projections = registry.resolve(PROJECTIONS)
      await projections.register(usersProjection)
      await bus.request('events:declare_facts', { types: [...AUTH_FACTS, ...SIGN_IN_FACTS] })
      const auth = new Auth(bus, projections)
      // A removed server's grants go with it (the projection folds its fact too).
      for (const fact of ACCESS_FACTS) bus.on(fact, () => auth.invalidate())
      bus.on('events:appended', ({ events }) => {
        if (events.some((e) => isAccessFact(e.type))) auth.invalidate()
      })
      bus.handle('auth:setup_needed', async () => (await auth.state()).users.length === 0)
      bus.handle('auth:create_user', async (request) => publicUser(await auth.createUser(request)))
      bus.handle('auth:setup', (request) => auth.setup(request))
      bus.handle('auth:list_users', async () => (await auth.state()).users.map(publicUser))
      bus.handle('auth:set_role', ({ username, role }) => auth.setRole(username, role))
      bus.handle('auth:reset_password', ({ username, password }) => auth.resetPassword(username, password))
      bus.handle('auth:change_password', (request) => auth.changePassword(request))
      bus.handle('auth:logout', ({ token }) => auth.logout(token))
      bus.handle('auth:delete_user', ({ username }) => auth.deleteUser(username))
      bus.handle('auth:login', (request) => auth.login(request))
      bus.handle('auth:verify', ({ token }) => auth.verify(token))
      bus.handle('auth:create_token', (request) => auth.createToken(request))
      bus.handle('auth:list_tokens', async () => (await auth.state()).tokens.map(publicToken))
      bus.handle('auth:revoke_token', ({ id }) => auth.revokeToken(id))
      handleGrants(bus, auth)
      bus.handle('auth:two_factor_status', ({ username }) => auth.factors.status(username))
      bus.handle('auth:two_factor_begin', ({ username }) => auth.factors.begin(username))
      bus.handle('auth:two_factor_confirm', ({ username, code }) => auth.factors.confirm(username, code))
      bus.handle('auth:two_factor_disable', async ({ username, code }) =>
        publicUser(await auth.factors.disable(username, code)),
      )
      bus.handle('auth:two_factor_reset', async ({ username, by }) =>
        publicUser(await auth.factors.reset(username, by)),
      )
    },
  }
}

function publicToken({ digest: _digest, ownerId: _ownerId, ...record }: StoredToken): ApiTokenRecord {
  return record
}

/** An identity's `servers`: the account's grants, when it is held to them (an admin never is). */
function grantsOf(user: { role: Role; servers?: Grants }): { servers?: Grants } {
  return heldToGrants(user) ? { servers: user.servers } : {}
}

function digestOf(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url')
}

class Auth {
  readonly #bus: BusScope
  readonly #limiter = new FailureLimiter()
  #state: Promise<AuthState> | undefined
  #key: Promise<Uint8Array> | undefined
  /** The account change under way: changes run one at a time (see #exclusive). */
  #changing: Promise<unknown> = Promise.resolve()
  readonly #checked = new BoundedMap<string, Claims>(CHECKED_TOKENS)

  readonly #projections: Projections
  readonly factors: SecondFactors

  constructor(bus: BusScope, projections: Projections) {
    this.#bus = bus
    this.#projections = projections
    this.factors = new SecondFactors(bus, this)
  }

  invalidate(): void {
    this.#state = undefined
  }

  state(): Promise<AuthState> {
    if (this.#state) return this.#state
    const loading = this.#projections.read(usersProjection.name, readAuthState)
    this.#state = loading
    loading.catch(() => {
      if (this.#state === loading) this.#state = undefined
    })
    return loading
  }

  /**
   * Runs an account change (users, roles, passwords, tokens) once the previous one has ended, so
   * its check and its facts are one step: of 4 parallel first-admin setups one wins, of two admins
   * deleting each other one stays, no token is minted for an account being deleted. Slow work (a
   * password hash) is done before, outside; the state is read inside, after the previous change.
   */
  exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#changing.then(change, change)
    this.#changing = run.catch(() => undefined)
    return run
  }

  async user(username: string): Promise<StoredUser> {
    const user = named((await this.state()).users, String(username))
    if (!user) throw new SmError('SM_ERR_AUTH_USER_NOT_FOUND', { username: String(username) })
    return user
  }

  /** How many failed sign-ins (or codes) a key may have per window (auth.login_max_failures, auth.login_window_s). */
  async signInLimit(): Promise<{ max: number; windowMs: number }> {
    return {
      max: await this.#setting('auth.login_max_failures'),
      windowMs: (await this.#setting('auth.login_window_s')) * 1000,
    }
  }

  async #setting(key: string): Promise<number> {
    return Number((await this.#bus.request('settings:get', { key })).value)
  }

  async #checkPassword(password: unknown): Promise<string> {
    const min = await this.#setting('auth.password_min_length')
    if (typeof password !== 'string' || password.length < min || password.length > 1024)
      throw new SmError('SM_ERR_AUTH_WEAK_PASSWORD', { min })
    return password
  }

  async createUser(request: {
    username: string
    password: string
    role?: Role
    firstAdmin?: boolean
  }): Promise<StoredUser> {
    const username = String(request.username ?? '')
    if (!USERNAME.test(username)) throw new SmError('SM_ERR_AUTH_BAD_USERNAME', { username })
    const role = request.firstAdmin ? 'admin' : (request.role ?? 'user')
    if (!isRole(role)) throw new SmError('SM_ERR_AUTH_BAD_ROLE', { role: String(role) })
    const password = await this.#checkPassword(request.password)
    const refusal = (users: readonly StoredUser[]) => {
      if (request.firstAdmin && users.length > 0) return new SmError('SM_ERR_AUTH_SETUP_DONE', {})
      if (named(users, username)) return new SmError('SM_ERR_AUTH_USER_EXISTS', { username })
      return undefined
    }
    // Checked before the slow hash (a quick answer) and again after it, in the change's own step.
    const early = refusal((await this.state()).users)
    if (early) throw early
    const hash = await hashPassword(password)
    return this.exclusive(async () => {
      const late = refusal((await this.state()).users)
      if (late) throw late
      // The hash first: a crash between the two leaves an unused vault entry, never a user without a password.
      await this.#bus.request('events:vault_set', { name: passwordKey(username), value: hash })
      await this.#bus.emit('auth:user_created', { username, role, id: randomUUID() })
      return this.user(username)
    })
  }

  /**
   * First-run setup: the first admin, and a session for it. Not a sign-in: the password was
   * just set, so no check and no sign-in limit (a client locked out before may still set up).
   */
  async setup(request: { username: string; password: string; remember?: boolean }): Promise<Session> {
    const user = await this.createUser({ username: request.username, password: request.password, firstAdmin: true })
    return this.#session(user, request.remember === true)
  }

  async setRole(username: string, role: Role): Promise<UserRecord> {
    if (!isRole(role)) throw new SmError('SM_ERR_AUTH_BAD_ROLE', { role: String(role) })
    return this.exclusive(async () => {
      const user = await this.user(username)
      if (user.role === role) return publicUser(user)
      if (user.role === 'admin') await this.#keepAnAdmin(user)
      await this.#bus.emit('auth:user_role_changed', { username: user.username, role, previous: user.role })
      return publicUser(await this.user(username))
    })
  }

  async changePassword(request: {
    username: string
    current: string
    password: string
    client?: string
  }): Promise<UserRecord> {
    const user = await this.user(request.username)
    await this.#checkPassword(request.password)
    if (!(await this.#attempt(user.username, String(request.current ?? ''), request.client, false)))
      throw new SmError('SM_ERR_AUTH_CURRENT_PASSWORD', {})
    return this.resetPassword(user.username, request.password)
  }

  async resetPassword(username: string, password: string): Promise<UserRecord> {
    const asked = await this.user(username)
    const hash = await hashPassword(await this.#checkPassword(password))
    return this.exclusive(async () => {
      // The very account asked for: not one of its name created while the hash ran.
      const user = (await this.state()).users.find((u) => u.id === asked.id)
      if (!user) throw new SmError('SM_ERR_AUTH_USER_NOT_FOUND', { username: asked.username })
      await this.#bus.request('events:vault_set', { name: passwordKey(user.username), value: hash })
      await this.#bus.emit('auth:user_password_changed', { username: user.username })
      // Guesses at the old password count no more, wherever they came from.
      const name = user.username.toLowerCase()
      this.#limiter.clearWhere(
        (key) => key === `user:${name}` || (key.startsWith('pair:') && key.endsWith(`\n${name}`)),
      )
      return publicUser(user)
    })
  }

  deleteUser(username: string): Promise<UserRecord> {
    return this.exclusive(async () => {
      const user = await this.user(username)
      if (user.role === 'admin') await this.#keepAnAdmin(user)
      await this.#bus.emit('auth:user_deleted', { username: user.username })
      await this.#bus.request('events:vault_set', { name: passwordKey(user.username), value: undefined })
      await this.factors.forget(user.username)
      return publicUser(user)
    })
  }

  /** Refuses to take `user` (an admin) away when no other admin is left; called inside #exclusive. */
  async #keepAnAdmin(user: StoredUser): Promise<void> {
    const admins = (await this.state()).users.filter((u) => u.role === 'admin')
    if (admins.length <= 1) throw new SmError('SM_ERR_AUTH_LAST_ADMIN', { username: user.username })
  }

  async login(request: {
    username: string
    password: string
    code?: string
    remember?: boolean
    client?: string
  }): Promise<Session> {
    const user = await this.#attempt(
      String(request.username ?? ''),
      String(request.password ?? ''),
      request.client,
      request.code ?? '',
    )
    if (!user) throw new SmError('SM_ERR_AUTH_INVALID_CREDENTIALS', {})
    return this.#session(user, request.remember === true)
  }

  /**
   * Checks a password, limited per user name at one client (`auth.login_max_failures`), and, ten
   * times wider, per user name from anywhere and per client for any name: guessing one account
   * from one place stops soon, while one client cannot lock out every user behind its address
   * (a proxy, a NAT), nor one user name lock that user out everywhere, before ten times the
   * limit. The attempt is counted before the slow hash, in the same turn as the check, so
   * parallel attempts cannot all pass the limit while their hashes run. A failure is recorded
   * (`auth:sign_in_failed`), a lockout once per window per key (`auth:sign_in_locked`): the refused
   * attempts themselves cost one fact at most. The user when the password matches, undefined
   * when not; 429 at a limit, even for the right password (else the limit would not stop a guess).
   * For an account with a second factor, `code` (false: not asked, a password check alone) must
   * pass too, within the same limits: the right password without a code is refused with
   * SM_ERR_AUTH_CODE_REQUIRED and still counts (else it would tell a guessed password for free),
   * a wrong code is a failure like a wrong password (SM_ERR_AUTH_CODE_INVALID).
   */
  async #attempt(
    username: string,
    password: string,
    client: string | undefined,
    code: string | false,
  ): Promise<StoredUser | undefined> {
    const { max, windowMs } = await this.signInLimit()
    const name = username.toLowerCase()
    const limits = [
      { key: `pair:${client ?? ''}\n${name}`, max, limit: 'user_at_client' as const },
      { key: `user:${name}`, max: max * WIDE_LIMIT, limit: 'user' as const },
      ...(client ? [{ key: `client:${client}`, max: max * WIDE_LIMIT, limit: 'client' as const }] : []),
    ]
    const at = Date.now()
    const refused = this.#limiter.reserve(limits, windowMs, at)
    if (refused) {
      if (refused.report)
        await this.#bus.emit('auth:sign_in_locked', {
          username,
          client,
          limit: limits.find((l) => l.key === refused.key)?.limit ?? 'user',
          seconds: refused.seconds,
        })
      throw new SmError('SM_ERR_AUTH_RATE_LIMITED', { seconds: refused.seconds })
    }
    const user = named((await this.state()).users, name)
    const stored = user && (await this.#bus.request('events:vault_get', { name: passwordKey(user.username) }))
    // A missing user costs as much as a wrong password, so timing does not tell which it was.
    const ok = await verifyPassword(password, stored ?? (await decoyHash()))
    if (!user || !stored || !ok) {
      await this.#bus.emit('auth:sign_in_failed', { username, client })
      return undefined
    }
    if (code !== false && user.twoFactor) {
      if (!code.trim()) throw new SmError('SM_ERR_AUTH_CODE_REQUIRED', {})
      await this.factors.signIn(user, code, client)
    }
    // The password is proven here: this place's failures on the name are forgiven, and the
    // attempt is taken back from the wide limits (others' failures there still count).
    const [pair, ...wide] = limits
    if (pair) this.#limiter.clear(pair.key)
    for (const { key } of wide) this.#limiter.release(key, at)
    return user
  }

  async #session(user: StoredUser, remember: boolean): Promise<Session> {
    const seconds = remember
      ? (await this.#setting('auth.remember_days')) * 86_400
      : (await this.#setting('auth.session_hours')) * 3_600
    const csrf = randomBytes(18).toString('base64url')
    const accessToken = await new (jose().SignJWT)({ csrf, ep: user.epoch, uid: user.id })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.username)
      .setJti(randomBytes(16).toString('base64url'))
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(await this.#signingKey())
    return { accessToken, tokenType: 'bearer', expiresIn: seconds, csrf, user: publicUser(user) }
  }

  #signingKey(): Promise<Uint8Array> {
    this.#key ??= this.#bus
      .request('events:vault_init', { name: JWT_KEY, value: randomBytes(32).toString('base64url') })
      .then((key) => new Uint8Array(Buffer.from(key, 'base64url')))
    this.#key.catch(() => {
      this.#key = undefined
    })
    return this.#key
  }

  async verify(token: string): Promise<Identity> {
    const text = String(token ?? '')
    if (text.startsWith(TOKEN_PREFIX)) return this.#verifyApiToken(text)
    const { user, claims } = await this.#verifySession(text)
    const enrolOnly =
      user.role === 'admin' &&
      !user.twoFactor &&
      (await this.#bus.request('settings:get', { key: 'auth.require_two_factor_admins' })).value === true
    return {
      username: user.username,
      userId: user.id,
      role: user.role,
      via: 'session',
      ...(enrolOnly ? { enrolOnly } : {}),
      ...grantsOf(user),
      csrf: String(claims.csrf ?? ''),
      sessionId: claims.jti,
      expiresAt: claims.exp === undefined ? undefined : claims.exp * 1000,
    }
  }

  async logout(token: string): Promise<{ username: string }> {
    const text = String(token ?? '')
    if (text.startsWith(TOKEN_PREFIX)) throw new SmError('SM_ERR_AUTH_SESSION_REQUIRED', {})
    const { user, claims } = await this.#verifySession(text)
    await this.#bus.emit('auth:session_revoked', {
      id: String(claims.jti),
      username: user.username,
      expiresAt: new Date((claims.exp ?? 0) * 1000).toISOString(),
    })
    return { username: user.username }
  }

  /** A session token's account and claims: signed by this manager, unexpired, not signed out, of this very account. */
  async #verifySession(text: string): Promise<{ user: StoredUser; claims: Claims }> {
    let claims: Claims
    try {
      claims = await this.#verifiedClaims(text)
    } catch (error) {
      const { errors } = jose()
      const reason =
        error instanceof errors.JWTExpired
          ? 'the session expired'
          : error instanceof errors.JWTClaimValidationFailed
            ? `its '${error.claim}' claim is missing or wrong (issued by an older version, or not by this manager)`
            : error instanceof errors.JOSEError
              ? 'not a session of this manager'
              : 'unreadable'
      throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason })
    }
    const { users, revoked } = await this.state()
    // By the account's id, not its name: a deleted account's sessions never pass to a new one of that name.
    if (typeof claims.uid !== 'string' || typeof claims.jti !== 'string')
      throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason: 'it was issued by an older version' })
    const user = users.find((u) => u.id === claims.uid)
    if (!user) throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason: 'its account no longer exists' })
    if (claims.ep !== user.epoch)
      throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', {
        reason: 'the password changed, or two-factor sign-in was turned on, since it was issued',
      })
    if (revoked.has(claims.jti)) throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason: 'it was signed out' })
    return { user, claims }
  }

  /**
   * The claims of a session token whose signature checked out. A signature check costs far more
   * than the rest of a request, so a checked token is remembered (by its whole text) until it
   * expires; its user, role and password epoch are still looked up on every request.
   */
  async #verifiedClaims(token: string): Promise<Claims> {
    const known = this.#checked.get(token)
    if (known && (known.exp ?? 0) * 1000 > Date.now()) return known
    // Every session this manager signs has them: one without an expiry, an id or an account is not one of its sessions.
    const claims = (
      await jose().jwtVerify(token, await this.#signingKey(), {
        algorithms: ['HS256'],
        requiredClaims: [...SESSION_CLAIMS],
      })
    ).payload as Claims
    this.#checked.set(token, claims)
    return claims
  }

  async #verifyApiToken(text: string): Promise<Identity> {
    const rest = text.slice(TOKEN_PREFIX.length)
    const cut = rest.indexOf('_')
    const id = rest.slice(0, cut)
    const secret = rest.slice(cut + 1)
    const { users, tokens } = await this.state()
    const token = cut > 0 ? tokens.find((t) => t.id === id) : undefined
    const expected = Buffer.from(token?.digest ?? '', 'base64url')
    const actual = Buffer.from(digestOf(secret), 'base64url')
    if (!token || expected.length !== actual.length || !timingSafeEqual(expected, actual))
      throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason: 'unknown or revoked API token' })
    if (token.expiresAt && Date.parse(token.expiresAt) <= Date.now())
      throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason: `the API token '${token.name}' expired` })
    // By the account's id: a later account of the owner's name is another account.
    const owner = token.ownerId === undefined ? undefined : users.find((u) => u.id === token.ownerId)
    if (!owner) throw new SmError('SM_ERR_AUTH_TOKEN_INVALID', { reason: 'its owner no longer exists' })
    const role = roleAtLeast(owner.role, token.role) ? token.role : owner.role
    return {
      username: owner.username,
      userId: owner.id,
      role,
      via: 'token',
      ...grantsOf({ role: owner.role, servers: owner.servers }),
      ...(role !== owner.role ? { capped: true as const } : {}),
      tokenId: token.id,
      expiresAt: token.expiresAt ? Date.parse(token.expiresAt) : undefined,
    }
  }

  async createToken(request: {
    name: string
    role: Role
    owner?: string
    ownerId?: string
    expiresDays?: number
  }): Promise<{ token: string; record: ApiTokenRecord }> {
    const name = String(request.name ?? '').trim()
    if (name.length === 0 || name.length > 80) throw new SmError('SM_ERR_AUTH_BAD_TOKEN_NAME', { name })
    if (!isRole(request.role)) throw new SmError('SM_ERR_AUTH_BAD_ROLE', { role: String(request.role) })
    // One step with the owner's check: an account being deleted gets no token that outlives it.
    return this.exclusive(() => this.#mintToken(name, request))
  }

  async #mintToken(
    name: string,
    request: { role: Role; owner?: string; ownerId?: string; expiresDays?: number },
  ): Promise<{ token: string; record: ApiTokenRecord }> {
    const { users } = await this.state()
    if (users.length === 0) throw new SmError('SM_ERR_AUTH_NO_USERS', {})
    // No owner named (the local CLI): the oldest admin, never someone else in its place. An
    // owner's id (a signed-in caller) names that very account.
    const owner =
      request.ownerId !== undefined
        ? users.find((u) => u.id === request.ownerId)
        : request.owner
          ? await this.user(request.owner)
          : users.find((u) => u.role === 'admin')
    if (!owner && request.ownerId === undefined && !request.owner) throw new SmError('SM_ERR_AUTH_NO_ADMIN', {})
    if (!owner) throw new SmError('SM_ERR_AUTH_USER_NOT_FOUND', { username: String(request.owner ?? request.ownerId) })
    if (!roleAtLeast(owner.role, request.role))
      throw new SmError('SM_ERR_AUTH_ROLE_TOO_HIGH', {
        role: request.role,
        owner: owner.username,
        ownerRole: owner.role,
      })
    const id = randomBytes(6).toString('hex')
    const secret = randomBytes(32).toString('base64url')
    const days = request.expiresDays
    const expiresAt = days && days > 0 ? new Date(Date.now() + days * 86_400_000).toISOString() : undefined
    await this.#bus.emit('auth:token_created', {
      id,
      name,
      role: request.role,
      owner: owner.username,
      ownerId: owner.id,
      digest: digestOf(secret),
      expiresAt,
    })
    const record = (await this.state()).tokens.find((t) => t.id === id)
    // Gone already: its owner was deleted by another process (changes here are one at a time).
    if (!record) throw new SmError('SM_ERR_AUTH_USER_NOT_FOUND', { username: owner.username })
    return { token: `${TOKEN_PREFIX}${id}_${secret}`, record: publicToken(record) }
  }

  revokeToken(id: string): Promise<ApiTokenRecord> {
    return this.exclusive(async () => {
      const token = (await this.state()).tokens.find((t) => t.id === String(id))
      if (!token) throw new SmError('SM_ERR_AUTH_TOKEN_NOT_FOUND', { id: String(id) })
      await this.#bus.emit('auth:token_revoked', { id: token.id, name: token.name })
      return publicToken(token)
    })
  }
}
