import { request } from 'node:http'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { base32, totp, wrongCode } from '../../helpers/totp'
import { ADMIN_PASSWORD, http, signIn, startWeb, type WebSetup } from '../../helpers/web'

/** Issue 34 item 2: two-factor sign-in (TOTP, RFC 6238) with recovery codes, over real HTTP. */

const signInWith = (url: string, body: Record<string, unknown>) => http(`${url}/auth/token`, { body })

/** Enrols `token`'s account (its sessions end) and signs `username` in again with a code: the secret's key, the recovery codes and the new session. */
async function enrol(
  url: string,
  token: string,
  username: string,
  password: string,
): Promise<{ key: Buffer; recovery: string[]; session: string }> {
  const begun = await http(`${url}/api/account/two-factor`, { token, method: 'POST' })
  expect(begun.status, begun.text).to.equal(200)
  const key = base32(begun.json.secret)
  const confirmed = await http(`${url}/api/account/two-factor/confirm`, { token, body: { code: totp(key) } })
  expect(confirmed.status, confirmed.text).to.equal(200)
  const signed = await signInWith(url, { username, password, code: totp(key, 30) })
  expect(signed.status, signed.text).to.equal(200)
  return { key, recovery: confirmed.json.recovery_codes, session: signed.json.access_token }
}

describe('services/auth: two-factor sign-in (TOTP) with recovery codes, over HTTP', () => {
  let web: WebSetup | undefined
  afterEach(async () => {
    await web?.manager.stop()
    web = undefined
  })

  it("computes RFC 6238's own test vector (the codes this test checks the product with)", () => {
    // RFC 6238, appendix B: the SHA-1 secret "12345678901234567890" at T = 59 s gives 94287082.
    expect(totp(Buffer.from('12345678901234567890'), 0, 8, 59_000)).to.equal('94287082')
    expect(totp(Buffer.from('12345678901234567890'), 0, 8, 1_111_111_109_000)).to.equal('07081804')
  })

  it('enrols with a QR code and the secret, then refuses the password alone, a wrong code and a used one; a recovery code signs in once', async () => {
    web = await startWeb()
    const { url, admin } = web
    const off = await http(`${url}/api/account/two-factor`, { token: admin })
    expect(off.json).to.include({ enabled: false, pending: false, recoveryCodesLeft: 0 })

    const begun = await http(`${url}/api/account/two-factor`, { token: admin, method: 'POST' })
    expect(begun.status, begun.text).to.equal(200)
    expect(begun.json.secret).to.match(/^[A-Z2-7]{32}$/)
    expect(begun.json.uri).to.equal(
      `otpauth://totp/server-manager:admin?issuer=server-manager&secret=${begun.json.secret}&algorithm=SHA1&digits=6&period=30`,
    )
    expect(begun.json.qr_svg).to.match(/^<svg [^>]*viewBox="0 0 \d+ \d+"/)
    // A secret shown once is kept by no cache.
    expect(begun.headers.get('cache-control')).to.equal('no-store')
    expect((await http(`${url}/api/account/two-factor`, { token: admin })).json.pending).to.equal(true)
    const key = base32(begun.json.secret)
    // Until confirmed, the password alone still signs in.
    expect((await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD })).status).to.equal(200)
    const wrongConfirm = await http(`${url}/api/account/two-factor/confirm`, {
      token: admin,
      body: { code: wrongCode(key) },
    })
    expect(wrongConfirm.status).to.equal(403)
    expect(wrongConfirm.json.code).to.equal('SM_ERR_AUTH_CURRENT_CODE')
    const confirmed = await http(`${url}/api/account/two-factor/confirm`, { token: admin, body: { code: totp(key) } })
    expect(confirmed.status, confirmed.text).to.equal(200)
    const recovery = confirmed.json.recovery_codes as string[]
    expect(recovery).to.have.length(10)
    for (const code of recovery) expect(code).to.match(/^[a-z2-9]{5}-[a-z2-9]{5}$/)
    expect(new Set(recovery).size).to.equal(10)
    // Turning it on ended every session of the account, this one too: one opened with the
    // password alone must not outlive it.
    const ended = await http(`${url}/api/account/two-factor`, { token: admin })
    expect(ended.status).to.equal(401)
    expect(ended.json.detail?.reason ?? ended.json.message).to.include('two-factor sign-in was turned on')

    const alone = await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD })
    expect(alone.status).to.equal(401)
    expect(alone.json.code).to.equal('SM_ERR_AUTH_CODE_REQUIRED')
    expect(alone.headers.get('set-cookie')).to.equal(null)
    const wrong = await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD, code: wrongCode(key) })
    expect(wrong.status).to.equal(401)
    expect(wrong.json.code).to.equal('SM_ERR_AUTH_CODE_INVALID')
    // A right code with a wrong password tells nothing of the code.
    const badPassword = await signInWith(url, { username: 'admin', password: 'not it at all', code: totp(key, 30) })
    expect(badPassword.json.code).to.equal('SM_ERR_AUTH_INVALID_CREDENTIALS')

    // The next step's code (the confirming one was taken); once.
    const code = totp(key, 30)
    const signed = await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD, code })
    expect(signed.status, signed.text).to.equal(200)
    const session = signed.json.access_token as string
    expect((await http(`${url}/auth/me`, { token: session })).json.username).to.equal('admin')
    const replayed = await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD, code })
    expect(replayed.status).to.equal(401)
    expect(replayed.json.code).to.equal('SM_ERR_AUTH_CODE_INVALID')
    expect((await http(`${url}/api/account/two-factor`, { token: session })).json).to.include({
      enabled: true,
      recoveryCodesLeft: 10,
    })
    // A second enrolment needs the first turned off.
    expect((await http(`${url}/api/account/two-factor`, { token: session, method: 'POST' })).status).to.equal(409)
    // One's own goes off with a code, not by an admin's reset.
    const ownReset = await http(`${url}/api/users/admin/two-factor`, { token: session, method: 'DELETE' })
    expect(ownReset.status).to.equal(409)
    expect(ownReset.json.code).to.equal('SM_ERR_AUTH_OWN_TWO_FACTOR')

    // A recovery code, typed as people type it, signs in once.
    const typed = ` ${(recovery[3] as string).toUpperCase().replace('-', ' ')} `
    expect((await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD, code: typed })).status).to.equal(200)
    expect(
      (await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD, code: recovery[3] })).json.code,
    ).to.equal('SM_ERR_AUTH_CODE_INVALID')
    const used = await web.manager.bus.request('events:read', { types: ['auth:recovery_code_used'] })
    expect(used.map((e) => e.payload)).to.deep.equal([{ username: 'admin', remaining: 9 }])
    const failed = await web.manager.bus.request('events:read', { types: ['auth:sign_in_failed'] })
    // The wrong code, the replayed one and the spent recovery code.
    expect(failed.filter((e) => (e.payload as { code?: boolean }).code === true)).to.have.length(3)

    // Turning it off needs a code: a recovery code here (every TOTP step in reach is taken).
    const noCode = await http(`${url}/api/account/two-factor/disable`, {
      token: session,
      body: { code: wrongCode(key) },
    })
    expect(noCode.status).to.equal(403)
    expect(noCode.json.code).to.equal('SM_ERR_AUTH_CURRENT_CODE')
    const disabled = await http(`${url}/api/account/two-factor/disable`, {
      token: session,
      body: { code: recovery[0] },
    })
    expect(disabled.status, disabled.text).to.equal(200)
    expect(disabled.json.user).to.include({ username: 'admin', twoFactor: false })
    expect((await signInWith(url, { username: 'admin', password: ADMIN_PASSWORD })).status).to.equal(200)

    // No secret and no recovery code in any fact.
    const facts = JSON.stringify(await web.manager.bus.request('events:read', {}))
    for (const secret of [begun.json.secret, ...recovery]) expect(facts).not.to.include(secret)
    expect(facts).to.include('auth:two_factor_enabled').and.to.include('auth:two_factor_disabled')
  })

  it('limits codes per account from any client, however right the password (429)', async () => {
    web = await startWeb({ settings: { 'auth.login_max_failures': 3 } })
    const { url } = web
    const { key } = await enrol(url, await web.login('dave', 'user'), 'dave', 'dave password')
    // Each guess from another client address (127.0.0.x): the password's limits are per client,
    // the codes' per account.
    const guess = (client: number, code: string) =>
      new Promise<{ status: number; json: { code?: string } }>((resolve, reject) => {
        const body = JSON.stringify({ username: 'dave', password: 'dave password', code })
        const req = request(
          `${url}/auth/token`,
          {
            method: 'POST',
            localAddress: `127.0.0.${client + 1}`,
            headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          },
          (res) => {
            let text = ''
            res.on('data', (chunk) => {
              text += chunk
            })
            res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }))
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    for (let client = 1; client <= 3; client++)
      expect((await guess(client, wrongCode(key))).json.code).to.equal('SM_ERR_AUTH_CODE_INVALID')
    const fourth = await guess(4, wrongCode(key))
    expect(fourth.status).to.equal(429)
    expect(fourth.json.code).to.equal('SM_ERR_AUTH_RATE_LIMITED')
  })

  it('counts wrong codes toward the sign-in limit (429), and leaves API tokens alone', async () => {
    web = await startWeb({ settings: { 'auth.login_max_failures': 3 } })
    const { url } = web
    const bob = await web.login('bob', 'user')
    const made = await http(`${url}/api/tokens`, { token: bob, body: { name: 'script', role: 'user' } })
    expect(made.status, made.text).to.equal(201)
    const { key } = await enrol(url, bob, 'bob', 'bob password')
    const attempt = () => signInWith(url, { username: 'bob', password: 'bob password', code: wrongCode(key) })
    for (let i = 0; i < 3; i++) expect((await attempt()).json.code).to.equal('SM_ERR_AUTH_CODE_INVALID')
    const locked = await signInWith(url, { username: 'bob', password: 'bob password', code: totp(key, 30) })
    expect(locked.status).to.equal(429)
    expect(locked.json.code).to.equal('SM_ERR_AUTH_RATE_LIMITED')
    // An API token is already a second factor: it works as before.
    expect((await http(`${url}/api/servers`, { token: made.json.token })).status).to.equal(200)
  })

  it("lets an admin reset a user's second factor from the web and the CLI; only an admin", async () => {
    web = await startWeb()
    const { url, admin } = web
    const { session: bob } = await enrol(url, await web.login('bob', 'moderator'), 'bob', 'bob password')
    const listed = await http(`${url}/api/users`, { token: admin })
    expect(listed.json.users.find((u: { username: string }) => u.username === 'bob').twoFactor).to.equal(true)
    const byModerator = await http(`${url}/api/users/bob/two-factor`, { token: bob, method: 'DELETE' })
    expect(byModerator.status).to.equal(403)
    const reset = await http(`${url}/api/users/bob/two-factor`, { token: admin, method: 'DELETE' })
    expect(reset.status, reset.text).to.equal(200)
    expect(reset.json.user).to.include({ username: 'bob', twoFactor: false })
    expect((await signInWith(url, { username: 'bob', password: 'bob password' })).status).to.equal(200)
    expect((await http(`${url}/api/users/bob/two-factor`, { token: admin, method: 'DELETE' })).status).to.equal(409)
    const facts = await web.manager.bus.request('events:read', { types: ['auth:two_factor_disabled'] })
    expect(facts.map((e) => e.payload)).to.deep.equal([{ username: 'bob', reset: true }])

    // The machine's owner, locked out with the phone and the codes gone: the local CLI.
    await enrol(url, await signIn(url, 'bob', 'bob password'), 'bob', 'bob password')
    const list = await cliIn(web.dataDir, ['user', 'list'])
    expect(list.stdout).to.match(/^bob\s+moderator\s+all\s+on\s/m)
    const cli = await cliIn(web.dataDir, ['user', 'reset-two-factor', 'BOB'])
    expect(cli.code, cli.stderr).to.equal(0)
    expect(cli.stdout).to.include("Two-factor sign-in is off for 'bob'")
    const twice = await cliIn(web.dataDir, ['user', 'reset-two-factor', 'bob'])
    expect(twice.code).to.equal(65)
    expect(twice.stderr).to.include('SM_ERR_AUTH_TWO_FACTOR_OFF')
    expect((await cliIn(web.dataDir, ['user', 'reset-two-factor', 'nobody'])).code).to.equal(66)
  })

  it('with auth.require_two_factor_admins, an admin without a second factor may only enrol; then everything', async () => {
    web = await startWeb()
    const { url, admin } = web
    const token = (await http(`${url}/api/tokens`, { token: admin, body: { name: 'ci', role: 'admin' } })).json.token
    const user = await web.login('carol', 'user')
    // A stream the admin opened before ends when the setting takes it over.
    const res = await fetch(`${url}/api/events/stream?topics=event:*`, {
      headers: { Authorization: `Bearer ${admin}`, Accept: 'text/event-stream' },
    })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (!text.includes('subscribed')) text += decoder.decode((await reader.read()).value ?? new Uint8Array())
    await web.manager.bus.request('settings:set', { key: 'auth.require_two_factor_admins', value: true })
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value)
    expect(text).to.include(': ended: Admins must use two-factor sign-in here')
    const refused = await http(`${url}/api/servers`, { token: admin })
    expect(refused.status).to.equal(403)
    expect(refused.json.code).to.equal('SM_ERR_AUTH_TWO_FACTOR_REQUIRED')
    const page = await http(`${url}/`, { token: admin, headers: { Accept: 'text/html' } })
    expect(page.status).to.equal(302)
    expect(page.headers.get('location')).to.equal('/users#two-factor')
    expect((await http(`${url}/users`, { token: admin, headers: { Accept: 'text/html' } })).status).to.equal(200)
    // Not the admins' API tokens, not other roles.
    expect((await http(`${url}/api/servers`, { token })).status).to.equal(200)
    expect((await http(`${url}/api/servers`, { token: user })).status).to.equal(200)
    const { session } = await enrol(url, admin, 'admin', ADMIN_PASSWORD)
    expect((await http(`${url}/api/servers`, { token: session })).status).to.equal(200)
  })
})
