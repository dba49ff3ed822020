import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { withoutSecretArgs } from '../../../lib/server-secrets'
import { fakeBedrockDir } from '../../helpers/game'
import { cliOk } from '../../helpers/run'
import { http, startWeb, type WebSetup } from '../../helpers/web'

const SECRETS = ['hunter2-rcon', 'plain-env-value', 'pw-arg-secret', 'tok-arg-secret', 'url-secret']

describe("services/web: a server's environment and secret-looking arguments (issue 32)", () => {
  let web: WebSetup
  afterEach(async () => {
    await web?.manager.stop()
  })

  it('never answers a user or moderator, nor any list, with an env value or a secret argument; an admin reads one server whole', async () => {
    web = await startWeb()
    await web.manager.bus.request('servers:add', {
      name: 'alpha',
      dir: fakeBedrockDir(),
      env: { RCON_PASSWORD: 'hunter2-rcon', LEVEL_SEED: 'plain-env-value' },
      args: ['--password=pw-arg-secret', '--token', 'tok-arg-secret', 'https://u:url-secret@example.org/x', 'nogui'],
    })
    const user = await web.login('u', 'user')
    const moderator = await web.login('m', 'moderator')
    const holdsNone = (what: string, text: string) => {
      for (const secret of SECRETS) expect(text, `${what} holds ${secret}`).not.to.contain(secret)
    }
    for (const [role, token] of Object.entries({ user, moderator, admin: web.admin })) {
      const list = await http(`${web.url}/api/servers`, { token })
      expect(list.status).to.equal(200)
      holdsNone(`${role}: GET /api/servers`, list.text)
      expect(list.json.servers[0].env).to.deep.equal({ RCON_PASSWORD: '[redacted]', LEVEL_SEED: '[redacted]' })
      expect(list.json.servers[0].args).to.deep.equal([
        '--password=[redacted]',
        '--token',
        '[redacted]',
        'https://u:[redacted]@example.org/x',
        'nogui',
      ])
    }
    for (const [role, token] of Object.entries({ user, moderator })) {
      const one = await http(`${web.url}/api/servers/alpha`, { token })
      expect(one.status).to.equal(200)
      holdsNone(`${role}: GET /api/servers/alpha`, one.text)
      for (const page of ['/', '/servers/alpha'])
        holdsNone(
          `${role}: ${page}`,
          (await http(`${web.url}${page}`, { token, headers: { Accept: 'text/html' } })).text,
        )
    }
    const whole = await http(`${web.url}/api/servers/alpha`, { token: web.admin })
    expect(whole.json.server.env).to.deep.equal({ RCON_PASSWORD: 'hunter2-rcon', LEVEL_SEED: 'plain-env-value' })
    expect(whole.json.server.args[0]).to.equal('--password=pw-arg-secret')
    // The CLI's list, over the bridge, is a list too.
    holdsNone('server list --json', await cliOk(web.dataDir, ['server', 'list', '--json']))
  })

  it("masks server.properties' secret-named keys (rcon.password) for a moderator; an admin reads them", async () => {
    web = await startWeb()
    const dir = fakeBedrockDir()
    appendFileSync(join(dir, 'server.properties'), 'rcon.password=props-secret\nenable-rcon=true\n')
    await web.manager.bus.request('servers:add', { name: 'alpha', dir })
    const moderator = await web.login('m', 'moderator')
    const masked = await http(`${web.url}/api/servers/alpha/properties`, { token: moderator })
    expect(masked.status).to.equal(200)
    expect(masked.text).not.to.contain('props-secret')
    expect(masked.json.properties).to.include({ 'rcon.password': '[redacted]', 'enable-rcon': 'true' })
    const whole = await http(`${web.url}/api/servers/alpha/properties`, { token: web.admin })
    expect(whole.json.properties['rcon.password']).to.equal('props-secret')
  })

  it('hides the values of secret-looking flags only', () => {
    expect(
      withoutSecretArgs([
        '-Drcon.password=x',
        '--api-key',
        'k',
        '--token-ttl-s',
        '60',
        '--port',
        '25565',
        '--secret',
        '--verbose',
        'PASSWORD=p',
      ]),
    ).to.deep.equal([
      '-Drcon.password=[redacted]',
      '--api-key',
      '[redacted]',
      '--token-ttl-s',
      '60',
      '--port',
      '25565',
      '--secret',
      '--verbose',
      'PASSWORD=[redacted]',
    ])
  })
})
