import { request } from 'node:http'
import { networkInterfaces } from 'node:os'
import { expect } from 'chai'
import { createManager, silentLogger } from '../../../manager'
import { startManager } from '../../helpers/manager'
import { tempDir } from '../../helpers/temp-dir'
import { ADMIN_PASSWORD, startWeb, type WebSetup } from '../../helpers/web'

interface Answer {
  readonly status: number
  readonly type: string
  // biome-ignore lint/suspicious/noExplicitAny: replies are inspected freely
  readonly json: any
}

/** One request with the Host and Origin a browser on another site would send (fetch cannot set Host). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const { hostname, port } = new URL(url)
  const data = body === undefined ? undefined : JSON.stringify(body)
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method,
        path,
        headers: { Accept: 'application/json', ...(data ? { 'Content-Type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), json: JSON.parse(text) }),
        )
      },
    )
    req.on('error', reject)
    req.end(data)
  })
}

describe('services/web: the manager answers only to its own names, and takes writes only from its own pages (issue 18 item 6)', () => {
  let web: WebSetup
  afterEach(async () => {
    await web?.manager.stop()
  })

  it('refuses create-first-user with a foreign Host or a foreign Origin and creates nothing; the same with its own Host and Origin works', async () => {
    web = await startWeb({ setup: false })
    const port = new URL(web.url).port
    const setup = '/api/setup/create-first-user'
    const credentials = { username: 'admin', password: ADMIN_PASSWORD }
    const setupNeeded = () => web.manager.bus.request('auth:setup_needed', {})

    // A DNS-rebinding page: its own domain, pointed at this machine, as Host and Origin.
    const rebound = await send(
      web.url,
      'POST',
      setup,
      { Host: `attacker.example:${port}`, Origin: `http://attacker.example:${port}` },
      credentials,
    )
    expect(rebound.status).to.equal(421)
    expect(rebound.type).to.match(/^application\/json/)
    expect(rebound.json).to.include({ status: 'error', code: 'SM_ERR_WEB_HOST_REFUSED' })
    expect(rebound.json.message).to.contain("'attacker.example'").and.contain('web.allowed_hosts')
    expect(await setupNeeded()).to.equal(true)

    // A page of another site posting to the manager's own address.
    const crossSite = await send(
      web.url,
      'POST',
      setup,
      { Host: `127.0.0.1:${port}`, Origin: 'http://attacker.example' },
      credentials,
    )
    expect(crossSite.status).to.equal(403)
    expect(crossSite.type).to.match(/^application\/json/)
    expect(crossSite.json).to.include({ status: 'error', code: 'SM_ERR_WEB_ORIGIN_REFUSED' })
    expect(crossSite.json.message).to.contain('web.trust_proxy')
    for (const origin of ['null', `https://127.0.0.1:${port}`, `http://127.0.0.1:${Number(port) + 1}`]) {
      const refused = await send(web.url, 'POST', setup, { Host: `127.0.0.1:${port}`, Origin: origin }, credentials)
      expect(refused.json.code, origin).to.equal('SM_ERR_WEB_ORIGIN_REFUSED')
    }
    expect(await setupNeeded()).to.equal(true)

    // Reads from another name are refused too (a rebinding page reads what it can); a listed name is answered.
    const named = () => send(web.url, 'GET', '/api/setup/status', { Host: `sm.example.com:${port}` })
    expect((await named()).json.code).to.equal('SM_ERR_WEB_HOST_REFUSED')
    await web.manager.bus.request('settings:set', { key: 'web.allowed_hosts', value: ['SM.example.com'] })
    expect(await named()).to.deep.include({ status: 200, json: { needs_setup: true } })
    const badList = await web.manager.bus
      .request('settings:set', { key: 'web.allowed_hosts', value: ['https://sm.example.com/'] })
      .catch((error: { code: string }) => error)
    expect(badList).to.include({ code: 'SM_ERR_SETTINGS_INVALID_VALUE' })

    // Its own name and its own page: the admin is created.
    const own = await send(
      web.url,
      'POST',
      setup,
      { Host: `localhost:${port}`, Origin: `http://localhost:${port}` },
      credentials,
    )
    expect(own.status, JSON.stringify(own.json)).to.equal(200)
    expect(own.json.status).to.equal('success')
    expect(await setupNeeded()).to.equal(false)
    // A script sends no Origin: its writes are taken as before.
    const script = await send(web.url, 'POST', '/auth/token', { Host: `127.0.0.1:${port}` }, credentials)
    expect(script.status).to.equal(200)
  })

  it('behind a trusted proxy, takes the host and scheme the proxy set (the right-most entry), never what the client put before it', async () => {
    const dataDir = tempDir()
    const setUp = await startManager({ dataDir })
    await setUp.bus.request('settings:set', { key: 'web.trust_proxy', value: true })
    await setUp.bus.request('settings:set', { key: 'web.allowed_hosts', value: ['sm.example.com'] })
    await setUp.stop()
    const manager = await startManager({ dataDir, web: true })
    try {
      const url = (await manager.bus.request('web:status', {})).url as string
      const upstream = new URL(url).host
      // Wrong credentials: a request that passes both checks is answered 401.
      const signIn = (headers: Record<string, string>) =>
        send(url, 'POST', '/auth/token', { Host: upstream, ...headers }, { username: 'nobody', password: 'guessed' })

      // The proxy appends the name the browser used (a rebound domain) to the one the client forged.
      const forgedHost = await signIn({ 'X-Forwarded-Host': 'sm.example.com, attacker.example' })
      expect(forgedHost.status).to.equal(421)
      expect(forgedHost.json).to.include({ status: 'error', code: 'SM_ERR_WEB_HOST_REFUSED' })
      expect(forgedHost.json.message).to.contain("'attacker.example'")
      const read = await send(url, 'GET', '/api/setup/status', {
        Host: upstream,
        'X-Forwarded-Host': `localhost:${new URL(url).port}, attacker.example`,
      })
      expect(read.json.code).to.equal('SM_ERR_WEB_HOST_REFUSED')
      expect((await signIn({ 'X-Forwarded-Host': 'attacker.example, sm.example.com' })).status).to.equal(401)

      // Served over http by the proxy: a forged https before it does not make an https page's Origin ours.
      const forgedProto = await signIn({
        'X-Forwarded-Host': 'sm.example.com',
        'X-Forwarded-Proto': 'https, http',
        Origin: 'https://sm.example.com',
      })
      expect(forgedProto.status).to.equal(403)
      expect(forgedProto.json).to.include({ status: 'error', code: 'SM_ERR_WEB_ORIGIN_REFUSED' })
      expect(forgedProto.json.message).to.contain('(http://sm.example.com)')
      const served = { 'X-Forwarded-Host': 'sm.example.com', 'X-Forwarded-Proto': 'http, https' }
      expect((await signIn({ ...served, Origin: 'https://sm.example.com' })).status).to.equal(401)
      expect((await signIn({ ...served, Origin: 'http://sm.example.com' })).json.code).to.equal(
        'SM_ERR_WEB_ORIGIN_REFUSED',
      )
    } finally {
      await manager.stop()
    }
  })

  it('listening on every address (0.0.0.0), answers to the addresses of this machine, and to no other address or name', async () => {
    const manager = createManager({ dataDir: tempDir(), logger: silentLogger, web: { host: '0.0.0.0', port: 0 } })
    await manager.start()
    try {
      const url = (await manager.bus.request('web:status', {})).url as string
      const port = new URL(url).port
      const status = (host: string) => send(`http://127.0.0.1:${port}`, 'GET', '/api/setup/status', { Host: host })
      const own = Object.values(networkInterfaces())
        .flat()
        .find((info) => info && info.family === 'IPv4' && !info.internal)?.address
      if (own) expect((await status(`${own}:${port}`)).status, own).to.equal(200)
      else
        console.log(
          '      (no non-loopback IPv4 address on this machine: only loopback and foreign addresses are checked)',
        )
      expect((await status(`127.0.0.1:${port}`)).status).to.equal(200)
      expect((await status(`[::1]:${port}`)).status).to.equal(200)
      for (const foreign of [`203.0.113.9:${port}`, `attacker.example:${port}`, 'localhost.attacker.example'])
        expect((await status(foreign)).json.code, foreign).to.equal('SM_ERR_WEB_HOST_REFUSED')
    } finally {
      await manager.stop()
    }
  })
})
