import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fakeBedrockDir } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'
import { http, startWeb, type WebSetup } from '../../helpers/web'

describe('services/web: players, the allowlist and operators over the API (issue 20, item 3)', function () {
  this.timeout(60_000)
  let web: WebSetup
  let dir: string
  beforeEach(async () => {
    web = await startWeb()
    dir = fakeBedrockDir()
    await web.manager.bus.request('servers:add', { name: 's1', dir })
  })
  afterEach(async () => {
    await web.manager.stop()
  })
  const api = (path: string) => `${web.url}/api/servers${path}`

  it('keeps the allowlist and operators for admins: users and moderators are refused before anything changes', async () => {
    const callers = { user: await web.login('u', 'user'), moderator: await web.login('m', 'moderator') }
    for (const [role, token] of Object.entries(callers))
      for (const list of ['allowlist', 'operators']) {
        for (const [method, path, body] of [
          ['GET', `/s1/${list}`, undefined],
          ['POST', `/s1/${list}`, { player: 'Steve' }],
          ['DELETE', `/s1/${list}/Steve`, undefined],
        ] as const) {
          const reply = await http(api(path), { method, token, body })
          expect([reply.status, reply.json.code], `${role} ${method} ${path}`).to.deep.equal([
            403,
            'SM_ERR_AUTH_FORBIDDEN',
          ])
        }
      }
    expect(existsSync(join(dir, 'allowlist.json'))).to.equal(false)
    // Nor through the console: a moderator's allowlist or op command is refused too.
    for (const command of ['allowlist add Steve', 'op Steve']) {
      const sent = await http(api('/s1/command'), { token: callers.moderator, body: { command } })
      expect([sent.status, sent.json.code], command).to.deep.equal([403, 'SM_ERR_WEB_COMMAND_BLOCKED'])
    }
    // The server page draws the Players section for everyone, the allowlist and operators for admins only.
    const page = async (token: string) =>
      (await http(`${web.url}/servers/s1`, { token, headers: { Accept: 'text/html' } })).text
    for (const token of Object.values(callers)) {
      const html = await page(token)
      expect(html).to.contain('id="players"')
      expect(html).not.to.match(/id="(allowlist|operators)"/)
    }
    expect(await page(web.admin)).to.match(/id="allowlist"[\s\S]*id="operators"/)
    // Who played is any user's to read.
    const history = await http(api('/s1/players/history'), { token: callers.user })
    expect([history.status, history.json]).to.deep.equal([200, { status: 'success', players: [] }])
  })

  it("lets an admin read, add and remove, answering each change with the list after it, and refuses what cannot be done with the service's codes", async () => {
    const added = await http(api('/s1/allowlist'), { token: web.admin, body: { player: 'Steve' } })
    expect(added.status, added.text).to.equal(200)
    expect(added.json).to.deep.equal({
      status: 'success',
      message: "'Steve' added to the allowlist of 's1'; allowlist.json is read when it starts.",
      changed: true,
      via: 'file',
      players: [{ name: 'Steve' }],
    })
    expect(JSON.parse(readFileSync(join(dir, 'allowlist.json'), 'utf8'))).to.deep.equal([
      { name: 'Steve', ignoresPlayerLimit: false },
    ])
    expect((await http(api('/s1/allowlist'), { token: web.admin })).json.players).to.deep.equal([{ name: 'Steve' }])
    const removed = await http(api('/s1/allowlist/Steve'), { method: 'DELETE', token: web.admin })
    expect(removed.json).to.deep.include({ changed: true, players: [] })
    const again = await http(api('/s1/allowlist/Steve'), { method: 'DELETE', token: web.admin })
    expect(again.json).to.deep.include({ changed: false, message: "'Steve' was not on the allowlist of 's1'." })
    // A gamertag with a space, in the path as a browser encodes it.
    await http(api('/s1/allowlist'), { token: web.admin, body: { player: 'Sneezy Puma' } })
    const spaced = await http(api(`/s1/allowlist/${encodeURIComponent('Sneezy Puma')}`), {
      method: 'DELETE',
      token: web.admin,
    })
    expect(spaced.json).to.deep.include({ changed: true, players: [] })

    const op = await http(api('/s1/operators'), { token: web.admin, body: { player: 'Steve' } })
    expect([op.status, op.json.code]).to.deep.equal([409, 'SM_ERR_SERVER_PLAYER_ID_UNKNOWN'])
    const bad = await http(api('/s1/allowlist'), { token: web.admin, body: { player: '' } })
    expect(bad.status).to.equal(422)

    const generic = join(tempDir(), 'generic')
    mkdirSync(generic)
    writeFileSync(join(generic, 'run.sh'), '#!/bin/sh\ncat\n', { mode: 0o755 })
    await web.manager.bus.request('servers:add', { name: 'g1', dir: generic, command: './run.sh' })
    const none = await http(api('/g1/operators'), { token: web.admin })
    expect([none.status, none.json.code]).to.deep.equal([422, 'SM_ERR_SERVER_ACCESS_UNKNOWN'])
    const missing = await http(api('/nope/allowlist'), { token: web.admin, body: { player: 'Steve' } })
    expect([missing.status, missing.json.code]).to.deep.equal([404, 'SM_ERR_SERVER_NOT_FOUND'])
  })

  it("streams a server's joins and leaves to any user on players:<server>", async () => {
    const user = await web.login('u', 'user')
    const abort = new AbortController()
    const res = await fetch(`${web.url}/api/events/stream?topics=players:s1`, {
      headers: { Authorization: `Bearer ${user}` },
      signal: abort.signal,
    })
    try {
      expect(res.status).to.equal(200)
      const reader = (res.body as ReadableStream<Uint8Array>).getReader()
      let text = ''
      while (!text.includes('subscribed')) text += new TextDecoder().decode((await reader.read()).value)
      await web.manager.bus.emit('after_player_join', {
        serverName: 's1',
        name: 'Steve',
        result: { status: 'success' },
      })
      while (!text.includes('"type":"after_player_join"')) text += new TextDecoder().decode((await reader.read()).value)
      const frame = text.split('\n').find((line) => line.includes('after_player_join')) as string
      expect(JSON.parse(frame.slice('data: '.length))).to.deep.include({
        type: 'after_player_join',
        topic: 'players:s1',
      })
    } finally {
      abort.abort()
    }
  })
})
