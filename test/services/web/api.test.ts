import { expect } from 'chai'
import type { GameProfile } from '../../../index'
import { fakeBedrockDir, killServers } from '../../helpers/game'
import { plugin, trace, traced } from '../../helpers/plugins'
import { afterItsUser } from '../../helpers/run-end'
import { http, startWeb, type WebSetup } from '../../helpers/web'

/** Records every delivery of pingplugin:ping into a file of the data directory. */
const LISTENER = plugin(
  'Listener',
  `override async onLoad() {
    await this.api.listenForEvent('pingplugin:ping', (payload, meta) => {
      ${trace('{ payload, meta }')}
    })
  }`,
)

/** Asks for alpha's profile and sends it a command it does not know (which rejects), on asker:go. */
const ASKER = plugin(
  'Asker',
  `override async onLoad() {
    await this.api.listenForEvent('asker:go', async () => {
      const profile = await this.api.getServerProfile('alpha')
      const refused = await this.api.sendCommand('alpha', 'again').catch((e: any) => ({ code: e.code, reply: e.params.reply }))
      ${trace('{ asked: { profile, refused } }')}
    })
  }`,
)

interface Operation {
  readonly method: string
  readonly path: string
  readonly role: string
}

function operations(document: { paths: Record<string, Record<string, { 'x-required-role': string }>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, role: op['x-required-role'] })),
  )
}

describe('services/web: the API, its OpenAPI document and trigger_event', () => {
  let web: WebSetup
  afterEach(async () => {
    await web?.manager.stop()
  })

  it('every route in the OpenAPI document but sign-in, setup, the docs and the icon answers 401 without credentials and 403 below its role', async () => {
    web = await startWeb()
    const document = (await http(`${web.url}/api/openapi.json`)).json
    expect(document.openapi).to.equal('3.1.0')
    const ops = operations(document)
    expect(ops.length).to.be.greaterThan(40)
    const publicOps = ops.filter((op) => op.role === 'public').map((op) => `${op.method} ${op.path}`)
    expect(
      // GET /auth/logout is public only to answer 405: signing out needs POST.
      publicOps.every(
        (op) =>
          /\/(auth\/token|setup|docs|openapi\.json|api\/info|login|favicon\.ico)/.test(op) || op === 'GET /auth/logout',
      ),
      publicOps.join(', '),
    ).to.equal(true)
    const tokens = { user: await web.login('u', 'user'), moderator: await web.login('m', 'moderator') }
    const below = { user: [], moderator: [tokens.user], admin: [tokens.user, tokens.moderator] } as Record<
      string,
      string[]
    >
    for (const op of ops.filter((o) => o.role !== 'public')) {
      const url = `${web.url}${op.path.replace(/\{[^}]+\}/g, 'x')}`
      const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method) ? {} : undefined
      const anonymous = await http(url, { method: op.method, body })
      expect(anonymous.status, `${op.method} ${op.path} without credentials`).to.equal(401)
      expect(anonymous.json?.code, `${op.method} ${op.path}`).to.equal('SM_ERR_AUTH_REQUIRED')
      for (const token of below[op.role] ?? []) {
        const forbidden = await http(url, { method: op.method, body, token })
        expect(forbidden.status, `${op.method} ${op.path} below ${op.role}`).to.equal(403)
      }
    }
  })

  it('POST /api/plugins/trigger_event delivers the payload to the listener as external_api_trigger, with the report', async () => {
    web = await startWeb({ files: { 'listener.ts': LISTENER }, enable: ['listener'] })
    const reply = await http(`${web.url}/api/plugins/trigger_event`, {
      token: web.admin,
      body: { event_name: 'pingplugin:ping', payload: { a: 1 } },
    })
    expect(reply.status).to.equal(200)
    expect(reply.json).to.deep.equal({
      status: 'success',
      message: "Event 'pingplugin:ping' triggered.",
      details: { event: 'pingplugin:ping', listeners: 1, delivered: 1, skipped: false, failed: [] },
    })
    expect(traced()).to.deep.equal([
      { payload: { a: 1 }, meta: { event: 'pingplugin:ping', sender: 'external_api_trigger' } },
    ])
    const facts = await web.manager.bus.request('events:read', { types: ['plugins:event_triggered'] })
    expect(facts.map((f) => f.actor)).to.deep.equal(['http:admin'])
  })

  it('answers bad trigger_event bodies with a clear 4xx, never a 5xx', async () => {
    web = await startWeb()
    const call = (options: Parameters<typeof http>[1]) =>
      http(`${web.url}/api/plugins/trigger_event`, { token: web.admin, ...options })
    const cases: [string, Parameters<typeof http>[1], number, string][] = [
      ['malformed JSON', { raw: '{"event_name": ' }, 400, 'SM_ERR_WEB_BAD_JSON'],
      ['a JSON string', { raw: '"pingplugin:ping"' }, 400, 'SM_ERR_WEB_BAD_JSON'],
      ['no name', { body: { payload: {} } }, 422, 'SM_ERR_WEB_VALIDATION'],
      ['an empty name', { body: { event_name: '' } }, 422, 'SM_ERR_WEB_VALIDATION'],
      ['a name without a namespace', { body: { event_name: 'ping' } }, 422, 'SM_ERR_PLUGIN_INVALID_EVENT_NAME'],
      ['a name with an empty part', { body: { event_name: 'ping:' } }, 422, 'SM_ERR_PLUGIN_INVALID_EVENT_NAME'],
      ['a payload that is a list', { body: { event_name: 'a:b', payload: [1] } }, 422, 'SM_ERR_WEB_VALIDATION'],
      [
        'a body over the limit',
        { body: { event_name: 'a:b', payload: { big: 'x'.repeat(1_100_000) } } },
        413,
        'SM_ERR_WEB_BODY_TOO_LARGE',
      ],
    ]
    for (const [what, options, status, code] of cases) {
      const reply = await call(options)
      expect(reply.status, what).to.equal(status)
      expect(reply.json.code, what).to.equal(code)
      expect(reply.json.message, what).to.be.a('string').and.not.empty
    }
    const validation = await call({ body: { payload: {} } })
    expect(validation.json.issues).to.deep.include({
      where: 'body',
      path: 'event_name',
      message: validation.json.issues[0].message,
    })
  })

  it('keeps console commands that stop or save a server, or change who may join or who is an operator, for admins, however spelled (issue 32)', async () => {
    web = await startWeb()
    const { dataDir, manager } = web
    afterItsUser(() => killServers(dataDir))
    await manager.bus.request('servers:add', { name: 'alpha', dir: fakeBedrockDir() })
    await manager.bus.request('servers:start', { name: 'alpha' })
    const moderator = await web.login('m', 'moderator')
    const send = (command: string, token: string) =>
      http(`${web.url}/api/servers/alpha/command`, { token, body: { command } })
    // Each spelling reaches the game for an admin and none for a moderator.
    const spellings = [
      'op Steve',
      'minecraft:op Steve',
      'execute as @a run op Steve',
      'execute as @a at @s run execute if entity @s run minecraft:OP Steve',
      'return run deop Steve',
      'execute @a ~ ~ ~ op Steve',
      '/op Steve',
      '// op Steve',
      'OP Steve',
      '  Op\tSteve',
      'minecraft:whitelist off',
      '/minecraft:allowlist add Steve',
      'deop Steve',
      'permission reload',
      'changesetting allow-cheats true',
      'lp user m parent set admin',
      'bukkit:reload',
      'rl confirm',
      'esudo Steve op Steve',
      'lpb user Steve permission set *',
      'save-off',
      'Save resume',
    ]
    const stopping = [
      ...['stop', '/STOP', 'minecraft:stop', 'execute run stop', 'restart', 'save-all flush', 'save hold'],
      ...['paper reload', 'end', 'shutdown', 'greload'],
    ]
    for (const command of [...spellings, ...stopping]) {
      const refused = await send(command, moderator)
      expect([refused.status, refused.json.code], command).to.deep.equal([403, 'SM_ERR_WEB_COMMAND_BLOCKED'])
    }
    expect(await manager.bus.request('events:read', { types: ['after_command_send'] })).to.deep.equal([])
    // A moderator's other commands go on to the game, admin words in their arguments too.
    for (const command of ['list', 'say stop the op', 'execute as @a run say op Steve'])
      expect((await send(command, moderator)).status, command).to.be.oneOf([200, 422])
    for (const command of spellings) expect((await send(command, web.admin)).status, command).to.be.oneOf([200, 422])
    const sent = await manager.bus.request('events:read', { types: ['after_command_send'] })
    expect(sent.map((f) => (f.payload as { command: string }).command)).to.deep.equal([
      'list',
      'say stop the op',
      'execute as @a run say op Steve',
      ...spellings.map((c) => c.trim()),
    ])
    await manager.bus.request('servers:stop', { name: 'alpha' })
  })

  it('answers a command the game refused 422 with its code and the reply lines, and a known one 200 (issue 19)', async () => {
    web = await startWeb({ files: { 'asker.ts': ASKER }, enable: ['asker'] })
    const { dataDir, manager } = web
    afterItsUser(() => killServers(dataDir))
    await manager.bus.request('servers:add', { name: 'alpha', dir: fakeBedrockDir() })
    await manager.bus.request('servers:start', { name: 'alpha' })
    const send = (command: string) =>
      http(`${web.url}/api/servers/alpha/command`, { token: web.admin, body: { command } })
    const refused = await send('nosuch')
    expect(refused.status).to.equal(422)
    expect(refused.json).to.include({ status: 'error', code: 'SM_ERR_SERVER_COMMAND_REFUSED' })
    expect(refused.json.message).to.include(`refused the command 'nosuch': "Unknown command: nosuch.`)
    expect(refused.json.reply).to.have.length(1)
    expect(refused.json.reply[0]).to.match(/ INFO\] Unknown command: nosuch\. Please check/)
    const known = await send('list')
    expect(known.status).to.equal(200)
    expect(known.json.reply[0]).to.match(/There are 0\/10 players online:/)
    const facts = await manager.bus.request('events:read', { types: ['after_command_send'] })
    const results = facts.map((f) => (f.payload as { result: Record<string, unknown> }).result)
    expect(results.map((r) => [r.status, r.code])).to.deep.equal([
      ['error', 'SM_ERR_SERVER_COMMAND_REFUSED'],
      ['success', undefined],
    ])
    expect(results[0]?.message).to.equal(refused.json.message)
    // A plugin gets the server's profile, and a refusal rejects with the game's reply in its params.
    const asked = await http(`${web.url}/api/plugins/trigger_event`, {
      token: web.admin,
      body: { event_name: 'asker:go', payload: {} },
    })
    expect(asked.json.details.delivered).to.equal(1)
    const { profile, refused: rejected } =
      traced<{ asked?: { profile: GameProfile; refused: { code: string; reply: string[] } } }>().find((t) => t.asked)
        ?.asked ?? {}
    expect(profile).to.deep.include({ name: 'bedrock', sayCommand: 'say {message}', stopCommand: 'stop' })
    expect(profile?.players?.listCommand).to.equal('list')
    expect(rejected?.code).to.equal('SM_ERR_SERVER_COMMAND_REFUSED')
    expect(rejected?.reply[0]).to.match(/Unknown command: again\./)
    await manager.bus.request('servers:stop', { name: 'alpha' })
  })

  it('checks each event-stream topic against the role, and refuses unknown topics', async () => {
    web = await startWeb()
    const user = await web.login('u', 'user')
    const stream = (topics: string, token: string) =>
      http(`${web.url}/api/events/stream?topics=${encodeURIComponent(topics)}`, { token })
    expect((await stream('server_status,server_log:lobby', user)).status).to.equal(403)
    expect((await stream('event:*', user)).status).to.equal(403)
    const unknown = await stream('resource-monitor:lobby', user)
    expect(unknown.status).to.equal(422)
    expect(unknown.json.message).to.contain("'resource-monitor:lobby' is not a topic")
  })

  it('refuses to store the redaction placeholder over a secret setting', async () => {
    web = await startWeb()
    const reply = await http(`${web.url}/api/settings/custom.db_password`, {
      token: web.admin,
      method: 'PUT',
      body: { value: '[redacted]' },
    })
    expect(reply.status).to.equal(422)
    const stored = await http(`${web.url}/api/settings/custom.motd`, {
      token: web.admin,
      method: 'PUT',
      body: { value: 'hi' },
    })
    expect(stored.json.status).to.equal('success')
  })

  it('answers unknown plugins with 404 and unknown routes with a JSON 404', async () => {
    web = await startWeb()
    const unknown = await http(`${web.url}/api/plugins/nope`, { token: web.admin, body: { enabled: true } })
    expect(unknown.status).to.equal(404)
    expect(unknown.json.code).to.equal('SM_ERR_PLUGIN_NOT_FOUND')
    const route = await http(`${web.url}/api/nothing/here`, { token: web.admin })
    expect(route.status).to.equal(404)
    expect(route.json.code).to.equal('SM_ERR_WEB_NOT_FOUND')
    const pages = await http(`${web.url}/api/plugins/pages`, { token: web.admin })
    expect(pages.json).to.deep.equal({ status: 'success', message: null, pages: [] })
  })

  it('serves Swagger UI and every asset from this machine', async () => {
    web = await startWeb()
    const page = await http(`${web.url}/docs/`, { headers: { Accept: 'text/html' } })
    expect(page.status).to.equal(200)
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.length).to.be.greaterThan(3)
    for (const asset of assets) {
      expect(asset).not.to.match(/^(https?:)?\/\//)
      expect((await http(new URL(asset, `${web.url}/docs/`).href)).status, asset).to.equal(200)
    }
    const init = await http(`${web.url}/docs/swagger-initializer.js`)
    expect(init.text).to.contain("url: '/api/openapi.json'")
    expect(init.text).not.to.match(/https?:\/\//)
  })
})
