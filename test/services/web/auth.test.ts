import { expect } from 'chai'
import { ADMIN_PASSWORD, http, startWeb, type WebSetup } from '../../helpers/web'

describe('services/web: setup, sign-in, roles and API tokens over HTTP', () => {
  let web: WebSetup
  afterEach(async () => {
    await web?.manager.stop()
  })

  it('leads the first visit to setup, creates the first admin once, and signs in', async () => {
    web = await startWeb({ setup: false })
    expect((await http(`${web.url}/api/setup/status`)).json).to.deep.equal({ needs_setup: true })
    const page = await http(`${web.url}/`, { headers: { Accept: 'text/html' } })
    expect(page.status).to.equal(302)
    expect(page.headers.get('location')).to.equal('/setup')

    const weak = await http(`${web.url}/api/setup/create-first-user`, { body: { username: 'root', password: 'short' } })
    expect(weak.status).to.equal(422)
    expect(weak.json.code).to.equal('SM_ERR_AUTH_WEAK_PASSWORD')

    const created = await http(`${web.url}/api/setup/create-first-user`, {
      body: { username: 'root', password: ADMIN_PASSWORD },
    })
    expect(created.status).to.equal(200)
    expect(created.json).to.include({ status: 'success', token_type: 'bearer' })
    expect(created.headers.get('set-cookie')).to.match(/access_token_cookie=[^;]+;.*httponly/i)
    const again = await http(`${web.url}/api/setup/create-first-user`, {
      body: { username: 'x', password: ADMIN_PASSWORD },
    })
    expect(again.status).to.equal(409)
    expect(again.json.code).to.equal('SM_ERR_AUTH_SETUP_DONE')
    const me = await http(`${web.url}/auth/me`, { token: created.json.access_token })
    expect(me.json).to.include({ username: 'root', role: 'admin', via: 'session' })
  })

  it('signs in with a form or JSON, refuses bad passwords with 401, and rate-limits failures with 429', async () => {
    web = await startWeb({ settings: { 'auth.login_max_failures': 3 } })
    const form = await http(`${web.url}/auth/token`, {
      raw: `username=admin&password=${encodeURIComponent(ADMIN_PASSWORD)}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).to.equal(200)
    expect(form.json.access_token).to.be.a('string')
    const empty = await http(`${web.url}/auth/token`, { body: { username: '', password: '' } })
    expect(empty.status).to.equal(422)
    expect(empty.json.message).to.contain('cannot be empty')
    for (let i = 0; i < 3; i++) {
      const wrong = await http(`${web.url}/auth/token`, { body: { username: 'admin', password: 'wrong password' } })
      expect(wrong.status).to.equal(401)
      expect(wrong.headers.get('www-authenticate')).to.equal('Bearer')
    }
    const limited = await http(`${web.url}/auth/token`, { body: { username: 'admin', password: ADMIN_PASSWORD } })
    expect(limited.status).to.equal(429)
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0)
    expect(limited.json.code).to.equal('SM_ERR_AUTH_RATE_LIMITED')
  })

  it('ends sessions when the password changes, and refuses forged or garbled tokens', async () => {
    web = await startWeb()
    const user = await web.login('alice', 'user')
    expect((await http(`${web.url}/auth/me`, { token: user })).status).to.equal(200)
    await web.manager.bus.request('auth:reset_password', { username: 'alice', password: 'a new password' })
    const old = await http(`${web.url}/auth/me`, { token: user })
    expect(old.status).to.equal(401)
    expect(old.json.message).to.contain('password changed')
    const [head, , sig] = web.admin.split('.')
    const forged = `${head}.${Buffer.from(JSON.stringify({ sub: 'admin', ep: 0, exp: 9e9 })).toString('base64url')}.${sig}`
    expect((await http(`${web.url}/auth/me`, { token: forged })).status).to.equal(401)
    expect((await http(`${web.url}/auth/me`, { token: 'smt_nope_nope' })).status).to.equal(401)
    expect((await http(`${web.url}/auth/me`, { headers: { Authorization: 'Basic abc' } })).status).to.equal(401)
  })

  it('needs the CSRF header on writes authenticated by the cookie, not on bearer writes', async () => {
    web = await startWeb()
    const login = await fetch(`${web.url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    })
    const { csrf_token: csrf } = (await login.json()) as { csrf_token: string }
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    const body = { event_name: 'x:y' }
    const read = await http(`${web.url}/api/plugins`, { headers: { Cookie: cookie } })
    expect(read.status).to.equal(200)
    const bare = await http(`${web.url}/api/plugins/trigger_event`, { body, headers: { Cookie: cookie } })
    expect(bare.status).to.equal(403)
    expect(bare.json.code).to.equal('SM_ERR_AUTH_CSRF')
    const withHeader = await http(`${web.url}/api/plugins/trigger_event`, {
      body,
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf },
    })
    expect(withHeader.status).to.equal(200)
    expect((await http(`${web.url}/api/plugins/trigger_event`, { body, token: web.admin })).status).to.equal(200)
  })

  it('API tokens: shown once, stored hashed, capped by the owner, revocable; a user token cannot start a server', async () => {
    web = await startWeb()
    const moderator = await web.login('mod', 'moderator')
    const tooHigh = await http(`${web.url}/api/tokens`, { token: moderator, body: { name: 'ci', role: 'admin' } })
    expect(tooHigh.status).to.equal(403)
    expect(tooHigh.json.code).to.equal('SM_ERR_AUTH_ROLE_TOO_HIGH')
    const made = await http(`${web.url}/api/tokens`, { token: moderator, body: { name: 'bot', role: 'user' } })
    expect(made.status).to.equal(201)
    const token = made.json.token as string
    expect(token).to.match(/^smt_[0-9a-f]+_/)
    const userStart = await http(`${web.url}/api/servers/any/start`, { token, method: 'POST' })
    expect(userStart.status).to.equal(403)
    expect(userStart.json.code).to.equal('SM_ERR_AUTH_FORBIDDEN')
    expect((await http(`${web.url}/api/servers`, { token })).status).to.equal(200)
    // Only the digest is kept: the token's secret is nowhere in the log or the database's text.
    const events = await web.manager.bus.request('events:read', { types: ['auth:token_created'] })
    expect(JSON.stringify(events)).not.to.contain(token.split('_').slice(2).join('_'))
    const listed = await http(`${web.url}/api/tokens`, { token: moderator })
    expect(listed.json.tokens.map((t: { name: string }) => t.name)).to.deep.equal(['bot'])
    expect(JSON.stringify(listed.json)).not.to.contain('digest')
    const revoked = await http(`${web.url}/api/tokens/${made.json.record.id}`, { token: moderator, method: 'DELETE' })
    expect(revoked.status).to.equal(200)
    expect((await http(`${web.url}/api/servers`, { token })).status).to.equal(401)
  })

  it('keeps the JWT key and password hashes out of facts, events output and settings', async () => {
    web = await startWeb()
    await web.login('bob', 'user')
    const everything = JSON.stringify(await web.manager.bus.request('events:read', { limit: 10_000 }))
    const settings = JSON.stringify(await web.manager.bus.request('settings:get_all', {}))
    const key = await web.manager.bus.request('events:vault_get', { name: 'auth.jwt_key' })
    const hash = await web.manager.bus.request('events:vault_get', { name: 'auth.password:bob' })
    expect(key).to.be.a('string')
    // At the suite's cost (test/helpers/setup.ts); the product's is checked in auth/passwords.test.ts.
    expect(hash).to.match(new RegExp(`^scrypt\\$${process.env.SM_TEST_PASSWORD_COST}\\$8\\$1\\$`))
    for (const secret of [key, hash, ADMIN_PASSWORD, 'bob password'] as string[]) {
      expect(everything).not.to.contain(secret)
      expect(settings).not.to.contain(secret)
    }
    const api = await http(`${web.url}/api/events?limit=10000`, { token: web.admin })
    expect(api.text).not.to.contain(key as string)
  })

  it('protects the last admin and lets users change only their own password', async () => {
    web = await startWeb()
    const last = await http(`${web.url}/api/users/admin`, { token: web.admin, method: 'DELETE' })
    expect(last.status).to.equal(409)
    expect(last.json.code).to.equal('SM_ERR_AUTH_LAST_ADMIN')
    const demote = await http(`${web.url}/api/users/admin/role`, {
      token: web.admin,
      method: 'PUT',
      body: { role: 'user' },
    })
    expect(demote.json.code).to.equal('SM_ERR_AUTH_LAST_ADMIN')
    const carol = await web.login('carol', 'user')
    await web.login('dave', 'user')
    const other = await http(`${web.url}/api/users/dave/password`, {
      token: carol,
      method: 'PUT',
      body: { password: 'x'.repeat(12) },
    })
    expect(other.status).to.equal(403)
    const own = await http(`${web.url}/api/users/carol/password`, {
      token: carol,
      method: 'PUT',
      body: { password: 'y'.repeat(12), current_password: 'carol password' },
    })
    expect(own.status).to.equal(200)
  })
})
