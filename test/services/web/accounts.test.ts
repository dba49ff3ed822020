import { createHash } from 'node:crypto'
import { expect } from 'chai'
import { SignJWT } from 'jose'
import { hashPassword } from '../../../services/auth/passwords'
import { startManager } from '../../helpers/manager'
import { cli } from '../../helpers/run'
import { ADMIN_PASSWORD, http, signIn, startWeb, type WebSetup } from '../../helpers/web'

/** Issue 18, accounts and sessions: what a token, a session, a sign-in and a sign-out may do. */

/** Where the sign-in page would send the browser for `?next=<next>` (its data-next). */
async function nextOf(url: string, next: string): Promise<string | undefined> {
  const page = await http(`${url}/login?next=${next}`, { headers: { Accept: 'text/html' } })
  expect(page.status).to.equal(200)
  return /data-next="([^"]*)"/.exec(page.text)?.[1]
}

describe('services/web: accounts and sessions hold against a token, parallel guesses, a recreated name and a sign-out', () => {
  let web: WebSetup | undefined
  /** A manager started again on the same data directory, stopped after the test. */
  let again: Awaited<ReturnType<typeof startManager>> | undefined
  afterEach(async () => {
    await again?.stop()
    await web?.manager.stop()
    again = undefined
    web = undefined
  })

  /** Stops the test's manager and starts another on its data directory; its web URL. */
  async function restart(setup: WebSetup): Promise<string> {
    await setup.manager.stop()
    again = await startManager({ dataDir: setup.dataDir, web: true })
    return (await again.bus.request('web:status', {})).url as string
  }

  it('item 1: a token, of any role, manages no account; own password needs the current one; an admin session resets others', async () => {
    web = await startWeb()
    const { url } = web
    const made = async (role: string) => {
      const reply = await http(`${url}/api/tokens`, { token: web?.admin, body: { name: `t-${role}`, role } })
      expect(reply.status, reply.text).to.equal(201)
      return reply.json as { token: string; record: { id: string } }
    }
    const userToken = await made('user')
    const adminToken = await made('admin')
    await web.login('bob', 'user')

    for (const token of [userToken.token, adminToken.token]) {
      const calls: [string, string, unknown?][] = [
        ['PUT', '/api/users/admin/password', { password: 'taken over!' }],
        ['PUT', '/api/users/bob/password', { password: 'taken over!' }],
        ['DELETE', `/api/tokens/${adminToken.record.id}`],
        ['POST', '/api/tokens', { name: 'more', role: 'user' }],
        ['GET', '/api/tokens'],
        ['POST', '/api/users', { username: 'mallory', password: 'mallory password', role: 'admin' }],
        ['PUT', '/api/users/bob/role', { role: 'admin' }],
        ['DELETE', '/api/users/bob'],
        ['GET', '/api/users'],
      ]
      for (const [method, path, body] of calls) {
        const reply = await http(`${url}${path}`, { method, token, body })
        expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(403)
        expect(reply.json.code, `${method} ${path}`).to.be.oneOf([
          'SM_ERR_AUTH_SESSION_REQUIRED',
          'SM_ERR_AUTH_FORBIDDEN',
        ])
        if (token === adminToken.token) expect(reply.json.code).to.equal('SM_ERR_AUTH_SESSION_REQUIRED')
      }
    }
    // Nothing changed: the old password signs in, the admin token still works, bob is still a user.
    const session = await signIn(url, 'admin', ADMIN_PASSWORD)
    expect((await http(`${url}/auth/me`, { token: adminToken.token })).json).to.include({ role: 'admin' })
    const listed = (await http(`${url}/api/users`, { token: session })).json.users as { username: string }[]
    expect(listed.map(({ username }) => username)).to.deep.equal(['admin', 'bob'])
    expect(listed[1]).to.include({ role: 'user' })

    // A token never acts above its own role, whatever its owner's.
    expect((await http(`${url}/auth/me`, { token: userToken.token })).json).to.include({ role: 'user', via: 'token' })
    const above = await http(`${url}/api/settings`, { token: userToken.token })
    expect(above.status).to.equal(403)
    expect(above.json.code).to.equal('SM_ERR_AUTH_FORBIDDEN')

    // One's own password: the current one is needed, also for an admin.
    const path = `${url}/api/users/admin/password`
    const bare = await http(path, { method: 'PUT', token: session, body: { password: 'a new admin password' } })
    expect(bare.status).to.equal(403)
    expect(bare.json.code).to.equal('SM_ERR_AUTH_CURRENT_PASSWORD')
    const wrong = await http(path, {
      method: 'PUT',
      token: session,
      body: { password: 'a new admin password', current_password: 'not the password' },
    })
    expect(wrong.json.code).to.equal('SM_ERR_AUTH_CURRENT_PASSWORD')
    const own = await http(path, {
      method: 'PUT',
      token: session,
      body: { password: 'a new admin password', current_password: ADMIN_PASSWORD },
    })
    expect(own.status, own.text).to.equal(200)
    const fresh = await signIn(url, 'admin', 'a new admin password')
    // An admin session resets another user's password without theirs.
    const reset = await http(`${url}/api/users/bob/password`, {
      method: 'PUT',
      token: fresh,
      body: { password: 'bob reset password' },
    })
    expect(reset.status, reset.text).to.equal(200)
    expect(await signIn(url, 'bob', 'bob reset password')).to.be.a('string')
  })

  it('item 2: 100 parallel wrong passwords give at most the limit 401s, the rest 429', async () => {
    web = await startWeb()
    const { url } = web
    const replies = await Promise.all(
      Array.from({ length: 100 }, () =>
        http(`${url}/auth/token`, { body: { username: 'admin', password: 'guessed password' } }),
      ),
    )
    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s === 401).length, statuses.join(' ')).to.equal(10)
    expect(statuses.filter((s) => s === 429).length, statuses.join(' ')).to.equal(90)
    for (const reply of replies.filter((r) => r.status === 429))
      expect(reply.json.code).to.equal('SM_ERR_AUTH_RATE_LIMITED')
    // The right password, now, waits too.
    const right = await http(`${url}/auth/token`, { body: { username: 'admin', password: ADMIN_PASSWORD } })
    expect(right.status).to.equal(429)
  })

  it('guesses at one name from one address lock out neither other users there nor that user elsewhere; the wide limits are ten times larger', async function () {
    // Some 30 sign-ins, each a slow password hash on purpose.
    this.timeout(120_000)
    web = await startWeb({ settings: { 'auth.login_max_failures': 1 } })
    await web.manager.bus.request('settings:set', { key: 'web.trust_proxy', value: true })
    const url = await restart(web)
    await again?.bus.request('auth:create_user', { username: 'bob', password: 'bob password 1', role: 'user' })
    const from = (address: string) => ({ 'X-Forwarded-For': address })
    const token = (address: string, username: string, password: string) =>
      http(`${url}/auth/token`, { headers: from(address), body: { username, password } }).then((r) => r.status)
    // One address (a shared proxy or NAT) guesses at 'admin' until refused.
    const shared = '203.0.113.1'
    expect(await token(shared, 'admin', 'x1')).to.equal(401)
    expect(await token(shared, 'admin', ADMIN_PASSWORD)).to.equal(429)
    // Another user behind that address, and the admin elsewhere, still sign in.
    expect(await token(shared, 'bob', 'bob password 1')).to.equal(200)
    expect(await token('203.0.113.2', 'admin', ADMIN_PASSWORD)).to.equal(200)
    // One address spraying names is refused at ten times the limit (10), whatever the name.
    const sprayed: number[] = []
    for (let i = 0; i < 11; i++) sprayed.push(await token('203.0.113.3', `name${i}`, 'guessed'))
    expect(sprayed.filter((s) => s === 401)).to.have.length(10)
    expect(sprayed.at(-1)).to.equal(429)
    expect(await token('203.0.113.3', 'bob', 'bob password 1')).to.equal(429)
    // One name guessed from many addresses is refused everywhere at ten times the limit, until its password changes.
    const spread: number[] = []
    for (let i = 0; i < 11; i++) spread.push(await token(`198.51.100.${i}`, 'bob', 'guessed'))
    expect(spread.filter((s) => s === 401)).to.have.length(10)
    expect(await token('203.0.113.4', 'bob', 'bob password 1')).to.equal(429)
    await again?.bus.request('auth:reset_password', { username: 'bob', password: 'bob password 2' })
    expect(await token('203.0.113.4', 'bob', 'bob password 2')).to.equal(200)
    const locked = await again?.bus.request('events:read', { types: ['auth:sign_in_locked'] })
    expect(locked?.map((e) => (e.payload as { limit: string }).limit)).to.deep.equal([
      'user_at_client',
      'client',
      'user',
    ])
  })

  it('item 7: failed sign-ins and one lockout per window are facts in `events`, with user and client, never the password', async () => {
    web = await startWeb({ settings: { 'auth.login_max_failures': 3 } })
    const { url } = web
    const guess = 'guessed password 123'
    const statuses: number[] = []
    for (const username of ['admin', 'admin', 'nobody', 'admin', 'admin', 'admin'])
      statuses.push((await http(`${url}/auth/token`, { body: { username, password: guess } })).status)
    // The limit of 'admin' at this client (3) is reached after its three failures: the rest are refused without a check.
    expect(statuses).to.deep.equal([401, 401, 401, 401, 429, 429])

    const failed = await web.manager.bus.request('events:read', { types: ['auth:sign_in_failed'] })
    expect(failed.map((e) => e.payload)).to.deep.equal([
      { username: 'admin', client: '127.0.0.1' },
      { username: 'admin', client: '127.0.0.1' },
      { username: 'nobody', client: '127.0.0.1' },
      { username: 'admin', client: '127.0.0.1' },
    ])
    const locked = await web.manager.bus.request('events:read', { types: ['auth:sign_in_locked'] })
    expect(locked.map((e) => e.payload)).to.have.length(1)
    expect(locked[0]?.payload).to.include({ username: 'admin', client: '127.0.0.1', limit: 'user_at_client' })
    const shown = await cli(web.dataDir, ['events'])
    expect(shown.code, shown.stderr).to.equal(0)
    expect(shown.stdout).to.contain('auth:sign_in_failed').and.contain('auth:sign_in_locked').and.contain('127.0.0.1')
    expect(shown.stdout).not.to.contain(guess)
    expect(JSON.stringify(await web.manager.bus.request('events:read', { limit: 10_000 }))).not.to.contain(guess)
  })

  it("item 3: a recreated user of a deleted one's name does not accept the old session, also after a restart", async () => {
    web = await startWeb()
    const { url } = web
    await web.manager.bus.request('auth:create_user', {
      username: 'ghost',
      password: 'ghost password 1',
      role: 'admin',
    })
    const old = await signIn(url, 'ghost', 'ghost password 1')
    expect((await http(`${url}/auth/me`, { token: old })).json).to.include({ username: 'ghost', role: 'admin' })
    expect((await http(`${url}/api/users/ghost`, { method: 'DELETE', token: web.admin })).status).to.equal(200)
    await web.manager.bus.request('auth:create_user', {
      username: 'ghost',
      password: 'ghost password 2',
      role: 'admin',
    })
    const refused = await http(`${url}/auth/me`, { token: old })
    expect(refused.status).to.equal(401)
    expect(refused.json.message).to.contain('no longer exists')
    const current = await signIn(url, 'ghost', 'ghost password 2')

    const after = await restart(web)
    expect((await http(`${after}/auth/me`, { token: old })).status).to.equal(401)
    expect((await http(`${after}/auth/me`, { token: current })).json).to.include({ username: 'ghost', role: 'admin' })
    // A replay of the log gives every account the id it had.
    await again?.bus.request('events:rebuild', {})
    expect((await http(`${after}/auth/me`, { token: old })).status).to.equal(401)
    expect((await http(`${after}/auth/me`, { token: current })).status).to.equal(200)
  })

  it('item 3: an account recorded before ids keeps its sessions across a restart and a replay', async () => {
    web = await startWeb()
    const { manager } = web
    // A auth:user_created fact as an older version wrote it: no id.
    await manager.bus.request('events:vault_set', {
      name: 'auth.password:elder',
      value: await hashPassword('elder password'),
    })
    await manager.bus.emit('auth:user_created', { username: 'elder', role: 'moderator' })
    const session = await signIn(web.url, 'elder', 'elder password')
    // A session as an older version signed it names the account only by name: refused.
    const key = (await manager.bus.request('events:vault_get', { name: 'auth.jwt_key' })) as string
    const unnamed = await new SignJWT({ csrf: 'x', ep: 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('elder')
      .setExpirationTime('1h')
      .sign(new Uint8Array(Buffer.from(key, 'base64url')))
    const old = await http(`${web.url}/auth/me`, { token: unnamed })
    expect(old.status).to.equal(401)
    expect(old.json.message).to.contain('older version')
    const after = await restart(web)
    expect((await http(`${after}/auth/me`, { token: session })).json).to.include({
      username: 'elder',
      role: 'moderator',
    })
    await again?.bus.request('events:rebuild', {})
    expect((await http(`${after}/auth/me`, { token: session })).status).to.equal(200)
    // And from a snapshot, once retention has deleted the fact.
    expect((await again?.bus.request('events:prune', { maxEvents: 0 }))?.snapshotSeq).to.be.a('number')
    await again?.bus.request('events:rebuild', {})
    expect((await http(`${after}/auth/me`, { token: session })).status).to.equal(200)
    expect((await again?.bus.request('events:check', {}))?.drifted).to.deep.equal([])
  })

  it('item 4: POST /auth/logout ends the session for good, also after a restart; GET does not sign out (405)', async () => {
    web = await startWeb()
    const { url } = web
    const login = await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    })
    const { access_token: cookieSession, csrf_token: csrf } = (await login.json()) as {
      access_token: string
      csrf_token: string
    }
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')

    // A GET (a link, an image on another site) signs nobody out.
    for (const headers of [{ Cookie: cookie }, { Cookie: cookie, Accept: 'text/html' }, {}] as Record<
      string,
      string
    >[]) {
      const get = await http(`${url}/auth/logout`, { headers })
      expect(get.status).to.equal(405)
      expect(get.headers.get('allow')).to.equal('POST')
      if (!headers.Accept) expect(get.json.code).to.equal('SM_ERR_AUTH_LOGOUT_NEEDS_POST')
    }
    expect((await http(`${url}/auth/me`, { headers: { Cookie: cookie } })).status).to.equal(200)

    // An API token is no session to end.
    const token = (await http(`${url}/api/tokens`, { token: web.admin, body: { name: 'bot', role: 'admin' } })).json
      .token as string
    const byToken = await http(`${url}/auth/logout`, { method: 'POST', token })
    expect(byToken.json.code).to.equal('SM_ERR_AUTH_SESSION_REQUIRED')
    expect((await http(`${url}/auth/me`, { token })).status).to.equal(200)

    // Signing out by the cookie (with its CSRF header), and by the bearer header.
    const out = await http(`${url}/auth/logout`, { method: 'POST', headers: { Cookie: cookie, 'X-CSRF-Token': csrf } })
    expect(out.status, out.text).to.equal(200)
    const bearer = await http(`${url}/auth/logout`, { method: 'POST', token: web.admin })
    expect(bearer.status, bearer.text).to.equal(200)
    for (const session of [cookieSession, web.admin] as string[]) {
      const after = await http(`${url}/auth/me`, { token: session })
      expect(after.status).to.equal(401)
      expect(after.json.message).to.contain('signed out')
    }
    // Other sessions of the same user go on.
    const other = await signIn(url, 'admin', ADMIN_PASSWORD)
    expect((await http(`${url}/auth/me`, { token: other })).status).to.equal(200)

    const restarted = await restart(web)
    expect((await http(`${restarted}/auth/me`, { token: cookieSession })).status).to.equal(401)
    expect((await http(`${restarted}/auth/me`, { token: web.admin })).status).to.equal(401)
    expect((await http(`${restarted}/auth/me`, { token: other })).status).to.equal(200)
  })

  it('item 5: after sign-in, next is followed only to a path of this origin', async () => {
    web = await startWeb()
    const elsewhere = [
      '%2F%09%2Fevil.example%2Fx',
      '%2F%0A%2Fevil.example',
      '%2F%0D%2Fevil.example',
      '%2F%20%2Fevil.example',
      '//evil.example/x',
      '%2F%2Fevil.example',
      '/%5Cevil.example',
      '%2F%5C%2Fevil.example',
      'https://evil.example/x',
      'javascript:alert(1)',
      '%2F%252F%252Fevil.example',
      '%2F%2509%2Fevil.example',
      'evil.example',
      '',
    ]
    for (const next of elsewhere) expect(await nextOf(web.url, next), next).to.equal('/')
    expect(await nextOf(web.url, '%2Fservers%2Fmc%3Ftab%3Dlog')).to.equal('/servers/mc?tab=log')
    expect(await nextOf(web.url, '/tasks')).to.equal('/tasks')
  })

  it('item 5: a next whose dot segments resolve to another host is refused, not resolved', async () => {
    web = await startWeb()
    const elsewhere = [
      '/.//127.0.0.1:9999/x',
      '%2F.%2F%2Fevil.example',
      '/..//evil.example',
      '/%2e//evil.example',
      '/%2E%2E//evil.example',
      '/./%5Cevil.example',
      '/.%5C/evil.example',
      '/a/..//evil.example',
      '/a/b/../..//evil.example',
      '/.///evil.example',
      '/././/evil.example',
      '/a/%2e%2e/%5Cevil.example',
    ]
    for (const next of elsewhere) expect(await nextOf(web.url, next), next).to.equal('/')
    // Dot segments that stay on this origin are resolved as the browser would.
    expect(await nextOf(web.url, '/a/../tasks')).to.equal('/tasks')
    expect(await nextOf(web.url, '/./servers/mc')).to.equal('/servers/mc')
  })

  it('retest 2: of parallel first-run setups exactly one wins; of parallel creations of one name exactly one', async () => {
    web = await startWeb({ setup: false })
    const { url } = web
    const setups = await Promise.all(
      ['first', 'second', 'third', 'fourth'].map((username) =>
        http(`${url}/api/setup/create-first-user`, { body: { username, password: `${username} password` } }),
      ),
    )
    const statuses = setups.map((r) => r.status)
    expect(statuses.filter((s) => s === 200).length, statuses.join(' ')).to.equal(1)
    for (const reply of setups.filter((r) => r.status !== 200)) {
      expect(reply.status, reply.text).to.equal(409)
      expect(reply.json.code).to.equal('SM_ERR_AUTH_SETUP_DONE')
    }
    const users = await web.manager.bus.request('auth:list_users', {})
    expect(users.map((u) => u.role)).to.deep.equal(['admin'])
    const admin = setups.find((r) => r.status === 200)?.json.access_token as string

    const creations = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        http(`${url}/api/users`, { token: admin, body: { username: 'twin', password: `twin password ${i}` } }),
      ),
    )
    const created = creations.map((r) => r.status)
    expect(created.filter((s) => s === 201).length, created.join(' ')).to.equal(1)
    for (const reply of creations.filter((r) => r.status !== 201)) {
      expect(reply.status, reply.text).to.equal(409)
      expect(reply.json.code).to.equal('SM_ERR_AUTH_USER_EXISTS')
    }
    const facts = await web.manager.bus.request('events:read', { types: ['auth:user_created'] })
    expect(facts.filter((e) => (e.payload as { username: string }).username === 'twin')).to.have.length(1)
  })

  it('retest 3: two admins deleting or demoting each other at once leave one admin', async () => {
    web = await startWeb()
    const { url } = web
    const other = await web.login('other', 'admin')
    const deletions = await Promise.all([
      http(`${url}/api/users/other`, { method: 'DELETE', token: web.admin }),
      http(`${url}/api/users/admin`, { method: 'DELETE', token: other }),
    ])
    expect(deletions.map((r) => r.status).sort(), deletions.map((r) => r.text).join(' ')).to.deep.equal([200, 409])
    expect(deletions.find((r) => r.status === 409)?.json.code).to.equal('SM_ERR_AUTH_LAST_ADMIN')
    let admins = (await web.manager.bus.request('auth:list_users', {})).filter((u) => u.role === 'admin')
    expect(admins).to.have.length(1)
    expect((await http(`${url}/api/setup/status`)).json.needs_setup).to.equal(false)

    // The same for demotions: a third admin and the one left demote each other.
    const left = admins[0]?.username as string
    const leftSession = await signIn(url, left, left === 'admin' ? ADMIN_PASSWORD : 'other password')
    const third = await web.login('third', 'admin')
    const demotions = await Promise.all([
      http(`${url}/api/users/third/role`, { method: 'PUT', token: leftSession, body: { role: 'user' } }),
      http(`${url}/api/users/${left}/role`, { method: 'PUT', token: third, body: { role: 'moderator' } }),
    ])
    expect(demotions.map((r) => r.status).sort(), demotions.map((r) => r.text).join(' ')).to.deep.equal([200, 409])
    expect(demotions.find((r) => r.status === 409)?.json.code).to.equal('SM_ERR_AUTH_LAST_ADMIN')
    admins = (await web.manager.bus.request('auth:list_users', {})).filter((u) => u.role === 'admin')
    expect(admins).to.have.length(1)
  })

  it('retest 5: a token minted while its owner is deleted never works for a new account of that name; no 5xx', async () => {
    web = await startWeb()
    const { url } = web
    const victim = await web.login('victim', 'user')
    const mints = Array.from({ length: 12 }, (_, i) =>
      http(`${url}/api/tokens`, { token: victim, body: { name: `t${i}`, role: 'user' } }),
    )
    const deleted = http(`${url}/api/users/victim`, { method: 'DELETE', token: web.admin })
    mints.push(
      ...Array.from({ length: 12 }, (_, i) =>
        http(`${url}/api/tokens`, { token: victim, body: { name: `u${i}`, role: 'user' } }),
      ),
    )
    const replies = await Promise.all(mints)
    expect((await deleted).status).to.equal(200)
    for (const reply of replies) {
      expect(reply.status, reply.text).to.be.below(500)
      if (reply.status !== 201) expect(reply.json.code, reply.text).to.match(/^SM_ERR_AUTH_/)
    }
    await web.login('victim', 'user')
    const minted = replies.filter((r) => r.status === 201).map((r) => r.json.token as string)
    for (const token of minted) {
      const me = await http(`${url}/auth/me`, { token })
      expect(me.status, me.text).to.equal(401)
    }
    expect(await web.manager.bus.request('auth:list_tokens', {})).to.deep.equal([])

    // A token recorded as an older version did (no owner id) acts for the account that had the name then.
    const secret = 'an-old-token-secret'
    await web.manager.bus.emit('auth:token_created', {
      id: 'old0',
      name: 'old',
      role: 'user',
      owner: 'victim',
      digest: createHash('sha256').update(secret).digest('base64url'),
      expiresAt: undefined,
    })
    const old = `smt_old0_${secret}`
    const oldMe = await http(`${url}/auth/me`, { token: old })
    expect(oldMe.json, oldMe.text).to.include({ username: 'victim' })
    const after = await restart(web)
    await again?.bus.request('events:rebuild', {})
    expect((await http(`${after}/auth/me`, { token: old })).json).to.include({ username: 'victim' })
    for (const token of minted) expect((await http(`${after}/auth/me`, { token })).status).to.equal(401)
    expect((await again?.bus.request('events:check', {}))?.drifted).to.deep.equal([])
  })

  it('retest 4: a live event stream ends on sign-out, deletion, demotion, password reset and token revocation', async () => {
    web = await startWeb()
    const { url, manager } = web
    let markers = 0
    /** Opens `event:*` with `token`; `ends()` records a new fact, then reads until the stream ends: its text. */
    const open = async (token: string) => {
      const res = await fetch(`${url}/api/events/stream?topics=event:*`, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
      })
      expect(res.status).to.equal(200)
      const reader = (res.body as ReadableStream<Uint8Array>).getReader()
      const decoder = new TextDecoder()
      let text = ''
      while (!text.includes('subscribed')) text += decoder.decode((await reader.read()).value ?? new Uint8Array())
      return {
        async ends(): Promise<string> {
          // A fact recorded after the change must not reach the stream: it ends first.
          const marker = `marker${++markers}`
          await manager.bus.request('auth:create_user', { username: marker, password: 'marker password' })
          for (;;) {
            const { done, value } = await reader.read()
            if (done) return text
            text += decoder.decode(value)
            if (text.includes(marker)) {
              await reader.cancel()
              throw new Error(`the stream outlived the change: ${text}`)
            }
          }
        },
        /** Reads until `what` arrives: the text. */
        async sees(what: string): Promise<string> {
          while (!text.includes(what)) {
            const { done, value } = await reader.read()
            if (done) throw new Error(`the stream ended: ${text}`)
            text += decoder.decode(value)
          }
          return text
        },
        close: () => reader.cancel(),
        /** Reads until the stream ends by itself: the text. */
        async closes(): Promise<string> {
          for (;;) {
            const { done, value } = await reader.read()
            if (done) return text
            text += decoder.decode(value)
          }
        },
      }
    }

    // Signed out.
    const signedOut = await web.login('gone1', 'admin')
    const first = await open(signedOut)
    expect((await http(`${url}/auth/logout`, { method: 'POST', token: signedOut })).status).to.equal(200)
    expect(await first.ends()).to.contain('ended: The token is not valid (it was signed out)')

    // Deleted.
    const deleted = await open(await web.login('gone2', 'admin'))
    expect((await http(`${url}/api/users/gone2`, { method: 'DELETE', token: web.admin })).status).to.equal(200)
    expect(await deleted.ends()).to.contain('no longer exists')

    // Demoted: event:* needs an admin.
    const demoted = await open(await web.login('gone3', 'admin'))
    const role = await http(`${url}/api/users/gone3/role`, {
      method: 'PUT',
      token: web.admin,
      body: { role: 'moderator' },
    })
    expect(role.status).to.equal(200)
    expect(await demoted.ends()).to.contain(
      "ended: the topic event:* is no longer open to this caller: You do not have permission to access this resource: it needs the role 'admin', and you have 'moderator'.",
    )

    // Password reset by an admin.
    const reset = await open(await web.login('gone4', 'admin'))
    const password = await http(`${url}/api/users/gone4/password`, {
      method: 'PUT',
      token: web.admin,
      body: { password: 'a reset password' },
    })
    expect(password.status).to.equal(200)
    expect(await reset.ends()).to.contain('the password changed')

    // An API token revoked.
    const made = await http(`${url}/api/tokens`, { token: web.admin, body: { name: 'watcher', role: 'admin' } })
    const revoked = await open(made.json.token as string)
    const revoke = await http(`${url}/api/tokens/${made.json.record.id}`, { method: 'DELETE', token: web.admin })
    expect(revoke.status).to.equal(200)
    expect(await revoked.ends()).to.contain('unknown or revoked API token')

    // A session that expires (no fact says so) ends its stream then.
    const key = new Uint8Array(
      Buffer.from((await manager.bus.request('events:vault_get', { name: 'auth.jwt_key' })) as string, 'base64url'),
    )
    const claims = JSON.parse(Buffer.from(web.admin.split('.')[1] as string, 'base64url').toString())
    const brief = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) + 2 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(key)
    const expiring = await open(brief)
    expect(await expiring.closes()).to.contain('ended: the session or token expired')

    // A stream whose identity still holds goes on.
    const kept = await open(web.admin)
    await manager.bus.request('auth:create_user', { username: 'still', password: 'still password' })
    expect(await kept.sees('still')).to.contain('auth:user_created')
    await kept.close()
  })

  it('retest 6: behind a proxy, the client is the address the proxy appended, not one the client chose', async () => {
    web = await startWeb({ settings: { 'auth.login_max_failures': 3 } })
    await web.manager.bus.request('settings:set', { key: 'web.trust_proxy', value: true })
    const url = await restart(web)
    const statuses: number[] = []
    for (let i = 1; i <= 5; i++) {
      // The client sends an address of its choice; the proxy appends the one it saw.
      const headers = { 'X-Forwarded-For': `198.51.100.${i}, 203.0.113.7` }
      const reply = await http(`${url}/auth/token`, { headers, body: { username: 'nobody', password: 'guessed' } })
      statuses.push(reply.status)
    }
    expect(statuses).to.deep.equal([401, 401, 401, 429, 429])
    const failed = await again?.bus.request('events:read', { types: ['auth:sign_in_failed'] })
    expect(failed?.map((e) => (e.payload as { client: string }).client)).to.deep.equal([
      '203.0.113.7',
      '203.0.113.7',
      '203.0.113.7',
    ])
    // Another client behind the same proxy is not locked out.
    const other = await http(`${url}/auth/token`, {
      headers: { 'X-Forwarded-For': '203.0.113.8' },
      body: { username: 'admin', password: ADMIN_PASSWORD },
    })
    expect(other.status, other.text).to.equal(200)
  })

  it('retest 7: first-run setup from a client at its sign-in limit creates the admin and signs it in (no 429)', async () => {
    web = await startWeb({ setup: false, settings: { 'auth.login_max_failures': 3 } })
    const { url } = web
    const guesses: number[] = []
    for (let i = 0; i < 4; i++)
      guesses.push((await http(`${url}/auth/token`, { body: { username: 'n', password: 'guessed' } })).status)
    expect(guesses).to.deep.equal([401, 401, 401, 429])
    const setup = await http(`${url}/api/setup/create-first-user`, {
      body: { username: 'owner', password: 'owner password' },
    })
    expect(setup.status, setup.text).to.equal(200)
    expect(setup.json).to.include({ status: 'success', token_type: 'bearer' })
    expect((await http(`${url}/auth/me`, { token: setup.json.access_token })).json).to.include({
      username: 'owner',
      role: 'admin',
    })
    // Setup signs in without a password check: it is no way around the limit once a user exists.
    const twice = await http(`${url}/api/setup/create-first-user`, {
      body: { username: 'owner', password: 'owner password' },
    })
    expect(twice.status).to.equal(409)
    expect(twice.json.code).to.equal('SM_ERR_AUTH_SETUP_DONE')
  })

  it('retest 8: a signed session without exp, jti or uid is refused', async () => {
    web = await startWeb()
    const { url, manager } = web
    const key = new Uint8Array(
      Buffer.from((await manager.bus.request('events:vault_get', { name: 'auth.jwt_key' })) as string, 'base64url'),
    )
    const claims = JSON.parse(Buffer.from(web.admin.split('.')[1] as string, 'base64url').toString()) as Record<
      string,
      unknown
    >
    const sign = (drop: string) => {
      const { [drop]: _dropped, ...rest } = claims
      return new SignJWT(rest).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key)
    }
    // The claims as they are sign a session that works: only the missing one is refused.
    const whole = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key)
    expect((await http(`${url}/auth/me`, { token: whole })).status).to.equal(200)
    for (const drop of ['exp', 'jti', 'uid', 'sub']) {
      const reply = await http(`${url}/auth/me`, { token: await sign(drop) })
      expect(reply.status, `without ${drop}: ${reply.text}`).to.equal(401)
      expect(reply.json.code).to.equal('SM_ERR_AUTH_TOKEN_INVALID')
    }
  })
})
