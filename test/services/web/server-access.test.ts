import { expect } from 'chai'
import { fakeBedrockDir } from '../../helpers/game'
import { http, startWeb, type WebSetup } from '../../helpers/web'

/** The names in a server list reply. */
const names = (reply: { json: { servers: { name: string }[] } }) => reply.json.servers.map((s) => s.name)

describe('services/web: per-server access, granted by admins, held at every door (issue 34, item 1)', function () {
  this.timeout(60_000)
  let web: WebSetup
  const api = (path: string) => `${web.url}/api${path}`
  const grant = (username: string, server: string, rights: string[]) =>
    http(api(`/users/${username}/servers/${server}`), { method: 'PUT', token: web.admin, body: { rights } })

  beforeEach(async () => {
    web = await startWeb()
    for (const name of ['s1', 's2'])
      expect(
        (await http(api('/servers'), { token: web.admin, body: { name, dir: fakeBedrockDir() } })).status,
      ).to.equal(201)
  })
  afterEach(async () => {
    await web.manager.stop()
  })

  it('a user granted one server sees only it, may do there what the rights cover (more than the role would), and nothing elsewhere', async () => {
    const ann = await web.login('ann', 'user')
    // Before any grant: the role's reach on every server.
    expect(names(await http(api('/servers'), { token: ann }))).to.deep.equal(['s1', 's2'])
    expect((await http(api('/servers/s1/logs'), { token: ann })).status).to.equal(403)

    const granted = await grant('ann', 's1', ['console'])
    expect(granted.status, granted.text).to.equal(200)
    expect(granted.json.access).to.deep.equal({ username: 'ann', server: 's1', rights: ['view', 'console'] })

    // The same session, at its next request.
    expect(names(await http(api('/servers'), { token: ann }))).to.deep.equal(['s1'])
    expect((await http(api('/status'), { token: ann })).json.servers.total).to.equal(1)
    const other = await http(api('/servers/s2'), { token: ann })
    expect([other.status, other.json.code]).to.deep.equal([404, 'SM_ERR_SERVER_NOT_FOUND'])
    expect(other.text).to.not.include('s1') // no "did you mean" naming another server
    expect((await http(api('/servers/s2/status'), { token: ann })).status).to.equal(404)
    expect((await http(api('/servers/s1/status'), { token: ann })).status).to.equal(200)
    // console: more than the user role may on any server
    expect((await http(api('/servers/s1/logs'), { token: ann })).status).to.equal(200)
    const power = await http(api('/servers/s1/start'), { method: 'POST', token: ann })
    expect([power.status, power.json.code]).to.deep.equal([403, 'SM_ERR_AUTH_NO_SERVER_RIGHT'])
    expect(power.json.message).to.include("'power'")
    // A route on one server no right covers (its removal), and one on none that needs more than a user.
    const removal = await http(api('/servers/s1'), { method: 'DELETE', token: ann })
    expect([removal.status, removal.json.code]).to.deep.equal([403, 'SM_ERR_AUTH_HELD_TO_SERVERS'])
    expect((await http(api('/hosts'), { token: ann })).json.code).to.equal('SM_ERR_AUTH_HELD_TO_SERVERS')

    // Widened: backups; the fact says who changed what.
    expect((await http(api('/servers/s1/backups'), { token: ann })).status).to.equal(403)
    expect((await grant('ann', 's1', ['console', 'backups'])).status).to.equal(200)
    expect((await http(api('/servers/s1/backups'), { token: ann })).status).to.equal(200)
    const facts = await http(api('/events?types=auth:server_access_changed'), { token: web.admin })
    expect(facts.json.events.map((e: { payload: unknown }) => e.payload)).to.deep.equal([
      { username: 'ann', server: 's1', rights: ['view', 'console'], previous: [], by: 'admin' },
      {
        username: 'ann',
        server: 's1',
        rights: ['view', 'console', 'backups'],
        previous: ['view', 'console'],
        by: 'admin',
      },
    ])

    // An API token of hers is held as she is.
    const { token } = await web.manager.bus.request('auth:create_token', { name: 'bot', role: 'user', owner: 'ann' })
    expect(names(await http(api('/servers'), { token }))).to.deep.equal(['s1'])
    expect((await http(api('/servers/s2/status'), { token })).status).to.equal(404)
  })

  it('narrows a moderator; revoking or removing the server never widens anyone again, only clearing does', async () => {
    const mod = await web.login('mod', 'moderator')
    expect((await grant('mod', 's2', ['view'])).status).to.equal(200)
    expect(names(await http(api('/servers'), { token: mod }))).to.deep.equal(['s2'])
    expect((await http(api('/servers/s2/stop'), { method: 'POST', token: mod })).json.code).to.equal(
      'SM_ERR_AUTH_NO_SERVER_RIGHT',
    )
    expect((await http(api('/users'), { token: mod })).json.code).to.equal('SM_ERR_AUTH_HELD_TO_SERVERS')

    // Revoked: held to nothing, not back to every server.
    const revoked = await http(api('/users/mod/servers/s2'), { method: 'DELETE', token: web.admin })
    expect(revoked.json.access.rights).to.deep.equal([])
    expect(names(await http(api('/servers'), { token: mod }))).to.deep.equal([])
    const reach = await http(api('/users/mod/servers'), { token: web.admin })
    expect(reach.json.access).to.deep.equal({ username: 'mod', role: 'moderator', scoped: true, servers: {} })

    // A removed server takes its grants: a later server of its name is another server.
    expect((await grant('mod', 's1', ['power'])).status).to.equal(200)
    expect((await http(api('/servers/s1/access'), { token: web.admin })).json.access).to.deep.equal([
      { username: 'mod', role: 'moderator', rights: ['view', 'power'] },
    ])
    expect((await http(api('/servers/s1'), { method: 'DELETE', token: web.admin })).status).to.equal(200)
    expect(
      (await http(api('/servers'), { token: web.admin, body: { name: 's1', dir: fakeBedrockDir() } })).status,
    ).to.equal(201)
    expect(names(await http(api('/servers'), { token: mod }))).to.deep.equal([])
    expect((await http(api('/servers/s1/access'), { token: web.admin })).json.access).to.deep.equal([])

    // Cleared: the role's reach on every server again.
    const cleared = await http(api('/users/mod/servers'), { method: 'DELETE', token: web.admin })
    expect(cleared.status, cleared.text).to.equal(200)
    expect(names(await http(api('/servers'), { token: mod }))).to.deep.equal(['s1', 's2'])
    const list = await http(api('/users'), { token: web.admin })
    expect(list.json.users.find((u: { username: string }) => u.username === 'mod')).to.not.have.property('servers')
  })

  it('refuses grants to admins, on unknown servers and users, with unknown rights, and from anyone but a signed-in admin', async () => {
    const admin2 = await web.login('root2', 'admin')
    const toAdmin = await grant('root2', 's1', ['view'])
    expect([toAdmin.status, toAdmin.json.code]).to.deep.equal([409, 'SM_ERR_AUTH_ADMIN_HAS_ALL'])
    expect((await grant('nobody', 's1', ['view'])).json.code).to.equal('SM_ERR_AUTH_USER_NOT_FOUND')
    await web.login('bo', 'user')
    expect((await grant('bo', 'nope', ['view'])).json.code).to.equal('SM_ERR_SERVER_NOT_FOUND')
    const bad = await grant('bo', 's1', ['root'])
    expect([bad.status, bad.json.code]).to.deep.equal([422, 'SM_ERR_WEB_VALIDATION'])
    const mod = await web.login('mod', 'moderator')
    const byMod = await http(api('/users/bo/servers/s1'), { method: 'PUT', token: mod, body: { rights: ['view'] } })
    expect(byMod.status).to.equal(403)
    const { token } = await web.manager.bus.request('auth:create_token', { name: 't', role: 'admin', owner: 'root2' })
    const byToken = await http(api('/users/bo/servers/s1'), { method: 'PUT', token, body: { rights: ['view'] } })
    expect(byToken.json.code).to.equal('SM_ERR_AUTH_SESSION_REQUIRED')
    expect(admin2).to.be.a('string')
  })

  it("holds a schedule to its maker's rights, lets a held account remove its server's schedules, and shows tasks by their server", async () => {
    const ann = await web.login('ann', 'user')
    await grant('ann', 's1', ['schedules', 'console'])
    const add = (body: Record<string, string>) => http(api('/servers/s1/schedules'), { token: ann, body })
    const restart = await add({ cron: '0 4 * * *', action: 'restart' })
    expect([restart.status, restart.json.code, restart.json.message]).to.deep.equal([
      403,
      'SM_ERR_AUTH_NO_SERVER_RIGHT',
      "Your account may not do this on 's1': it needs the 'power' right there. Ask an admin to grant it (the server's Access section).",
    ])
    expect((await add({ cron: '0 4 * * *', action: 'backup' })).json.code).to.equal('SM_ERR_AUTH_NO_SERVER_RIGHT')
    expect((await add({ cron: '0 4 * * *', action: 'command', command: 'stop' })).json.code).to.equal(
      'SM_ERR_WEB_COMMAND_BLOCKED',
    )
    const said = await add({ cron: '0 4 * * *', action: 'command', command: 'say hello' })
    expect(said.status, said.text).to.equal(201)
    // Its own server's schedule it may remove; another server's is not found there.
    const other = await http(api('/servers/s2/schedules'), {
      token: web.admin,
      body: { cron: '0 5 * * *', action: 'backup' },
    })
    expect(
      (await http(api(`/servers/s1/schedules/${other.json.schedule.id}`), { method: 'DELETE', token: web.admin })).json
        .code,
    ).to.equal('SM_ERR_SCHEDULE_NOT_FOUND')
    const removed = await http(api(`/servers/s1/schedules/${said.json.schedule.id}`), { method: 'DELETE', token: ann })
    expect(removed.status, removed.text).to.equal(200)

    // Tasks by the server they are about, whoever began them.
    const { taskId } = await web.manager.bus.request('servers:begin', { action: 'backup', name: 's1', type: 'config' })
    const hidden = await web.manager.bus.request('servers:begin', { action: 'backup', name: 's2', type: 'config' })
    const tasks = await http(api('/tasks'), { token: ann })
    expect(tasks.json.tasks.map((t: { server?: string }) => t.server))
      .to.include('s1')
      .and.not.include('s2')
    expect((await http(api(`/tasks/${taskId}`), { token: ann })).status).to.equal(200)
    expect((await http(api(`/tasks/${hidden.taskId}`), { token: ann })).json.code).to.equal('SM_ERR_TASK_NOT_FOUND')
  })

  it("streams: a server's topics by the right there, the others narrowed; a stream whose right is revoked ends", async () => {
    const ann = await web.login('ann', 'user')
    await grant('ann', 's1', ['console'])
    const open = (topics: string) =>
      fetch(api(`/events/stream?topics=${topics}`), { headers: { Authorization: `Bearer ${ann}` } })
    const hidden = await open('server_log:s2')
    expect([hidden.status, (await hidden.json()).code]).to.deep.equal([404, 'SM_ERR_SERVER_NOT_FOUND'])
    const noRight = await open('servers:backup_progress:s1')
    expect([noRight.status, (await noRight.json()).code]).to.deep.equal([403, 'SM_ERR_AUTH_NO_SERVER_RIGHT'])
    const host = await open('metrics:host_sampled')
    expect((await host.json()).code).to.equal('SM_ERR_AUTH_HELD_TO_SERVERS')

    const stream = await open('server_log:s1,server_status')
    expect(stream.status).to.equal(200)
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader()
    let text = ''
    const until = async (what: string) => {
      while (!text.includes(what)) {
        const { value, done } = await reader.read()
        if (done) break
        text += Buffer.from(value).toString()
      }
      return text
    }
    await until('subscribed')
    // A status change of a server she does not see never reaches her; one of hers does.
    // As the servers service reports what it observed (its payload, with the hooks' result).
    const emit = web.manager.bus.emit.bind(web.manager.bus) as (event: string, payload: unknown) => Promise<unknown>
    const status = (serverName: string) =>
      emit('after_server_status_change', {
        serverName,
        status: 'starting',
        previousStatus: 'stopped',
        at: new Date().toISOString(),
        journalSeq: 0,
        result: { status: 'success' },
      })
    await status('s2')
    await status('s1')
    expect(await until('"serverName":"s1"')).to.not.include('"serverName":"s2"')
    await grant('ann', 's1', ['view'])
    expect(await until(': ended:')).to.include("needs the 'console' right")
  })
})

/** A plugin's route on one server, declaring its right (docs/plugins.md, "Routes on one server"). */
const STATS_PLUGIN = `
import { PluginBase } from 'server-manager'
import { defineRoute, Router } from 'server-manager/web'
export default class Stats extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router()
    // A plain route naming a server, with no right: for accounts with every server's reach only.
    router.get('/stats/plain/servers/:name', (ctx) => {
      ctx.body = { status: 'success', server: ctx.params.name }
    })
    // So is one whose router's prefix names it.
    const prefixed = new Router({ prefix: '/stats/pfx/servers/:name' })
    prefixed.get('/x', (ctx) => {
      ctx.body = { status: 'success', server: ctx.params.name }
    })
    defineRoute(
      router,
      { method: 'get', path: '/stats/servers/:name', name: 'stats_of', access: 'moderator', right: 'view' },
      async (ctx, { params }) => ({
        status: 'success',
        server: params.name,
        grants: ctx.state.user.servers ?? null,
        reach: await this.api.getUserAccess(ctx.state.user.username),
      }),
    )
    return [router, prefixed]
  }
}
`

describe("services/web: a plugin's route on one server is held to the caller's rights there (issue 34, item 1)", function () {
  this.timeout(60_000)
  it('admits a held user on a granted server by its right, 404 elsewhere, and everyone else by the role; this.api tells the reach', async () => {
    const web = await startWeb({ files: { 'stats.ts': STATS_PLUGIN }, enable: ['stats'] })
    try {
      for (const name of ['s1', 's2']) await web.manager.bus.request('servers:add', { name, dir: fakeBedrockDir() })
      const ann = await web.login('ann', 'user')
      const bob = await web.login('bob', 'user')
      await web.manager.bus.request('auth:set_server_access', { username: 'ann', server: 's1', rights: ['view'] })
      const mine = await http(`${web.url}/stats/servers/s1`, { token: ann })
      expect(mine.status, mine.text).to.equal(200)
      expect(mine.json).to.deep.include({
        server: 's1',
        grants: { s1: ['view'] },
        reach: { username: 'ann', role: 'user', scoped: true, servers: { s1: ['view'] } },
      })
      expect((await http(`${web.url}/stats/servers/s2`, { token: ann })).status).to.equal(404)
      expect((await http(`${web.url}/stats/plain/servers/s2`, { token: ann })).status).to.equal(404)
      expect((await http(`${web.url}/stats/plain/servers/s1`, { token: ann })).json.code).to.equal(
        'SM_ERR_AUTH_HELD_TO_SERVERS',
      )
      expect((await http(`${web.url}/stats/plain/servers/s2`, { token: bob })).status).to.equal(200)
      expect((await http(`${web.url}/stats/pfx/servers/s2/x`, { token: ann })).status).to.equal(404)
      expect((await http(`${web.url}/stats/pfx/servers/s2/x`, { token: bob })).status).to.equal(200)
      // Not held: the route's role, as before.
      expect((await http(`${web.url}/stats/servers/s1`, { token: bob })).json.code).to.equal('SM_ERR_AUTH_FORBIDDEN')
      expect((await http(`${web.url}/stats/servers/s2`, { token: web.admin })).json.reach).to.include({
        role: 'admin',
        scoped: false,
      })
    } finally {
      await web.manager.stop()
    }
  })
})

/** What a second attack probe found, mended: each stays mended. */
describe('services/web: per-server access, the second probe (issue 34, item 1)', function () {
  this.timeout(60_000)
  it("holds a schedule edit to the command it will send, a task to its whole id, and a held moderator's user token to a user's role", async () => {
    const web = await startWeb()
    try {
      const api = (path: string) => `${web.url}/api${path}`
      for (const name of ['s1', 's2']) await web.manager.bus.request('servers:add', { name, dir: fakeBedrockDir() })
      const ann = await web.login('ann', 'user')
      await web.manager.bus.request('auth:set_server_access', {
        username: 'ann',
        server: 's1',
        rights: ['console', 'schedules'],
      })
      const op = await web.manager.bus.request('servers:schedule_add', {
        name: 's1',
        cron: '0 3 * * *',
        action: 'command',
        command: 'op bob',
      })
      const edit = (body: Record<string, string>) =>
        http(api(`/servers/s1/schedules/${op.id}`), { method: 'PUT', token: ann, body })
      const kept = await edit({ action: 'command', cron: '* * * * *' })
      expect([kept.status, kept.json.code]).to.deep.equal([422, 'SM_ERR_WEB_VALIDATION'])
      expect((await edit({ action: 'command', command: 'op bob' })).json.code).to.equal('SM_ERR_WEB_COMMAND_BLOCKED')
      expect((await edit({ action: 'command', command: 'say hi' })).status).to.equal(200)

      // A task of a hidden server is not found by the start of its id, nor named.
      const hidden = await web.manager.bus.request('servers:begin', { action: 'backup', name: 's2', type: 'config' })
      for (const start of [hidden.taskId.slice(0, 1), hidden.taskId.slice(0, 8)]) {
        const found = await http(api(`/tasks/${start}`), { token: ann })
        expect([found.status, found.json.code], start).to.deep.equal([404, 'SM_ERR_TASK_NOT_FOUND'])
        expect(found.text).to.not.include(hidden.taskId).and.not.include('s2')
      }

      // A held moderator's token made as a user is a user's, grants or not.
      await web.login('mod', 'moderator')
      await web.manager.bus.request('auth:set_server_access', { username: 'mod', server: 's1', rights: ['console'] })
      const { token } = await web.manager.bus.request('auth:create_token', { name: 'ro', role: 'user', owner: 'mod' })
      const command = await http(api('/servers/s1/command'), { token, body: { command: 'say x' } })
      expect([command.status, command.json.code]).to.deep.equal([403, 'SM_ERR_AUTH_FORBIDDEN'])
      expect((await http(api('/servers/s1/status'), { token })).status).to.equal(200)
      expect((await http(api('/servers/s2/status'), { token })).status).to.equal(404)
    } finally {
      await web.manager.stop()
    }
  })
})
