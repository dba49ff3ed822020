import { existsSync, mkdirSync, openAsBlob, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { expect } from 'chai'
import { FAKE_BEDROCK, fakeBedrockDir, killServers } from '../../helpers/game'
import { afterItsUser } from '../../helpers/run-end'
import { tempDir } from '../../helpers/temp-dir'
import { postFile } from '../../helpers/upload'
import { http, startWeb, type WebSetup } from '../../helpers/web'
import { jarBytes, writeZip } from '../../helpers/zip'

/** A Bedrock release as Mojang ships it (the tests' stand-in): its binary, default config, a version marker. */
async function bedrockRelease(version: string): Promise<string> {
  const file = join(tempDir(), `bedrock-server-${version}.zip`)
  await writeZip(file, {
    bedrock_server: `#!/bin/sh\nexec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`,
    'server.properties': 'server-name=Dedicated Server\nlevel-name=Bedrock level\n',
    'allowlist.json': '[]',
    'release-notes.txt': `version ${version}\n`,
  })
  return file
}

/** A multipart POST of the file at `path` as the field `archive`, with the form's other `fields`. */
async function upload(url: string, token: string, path: string, fields: Record<string, string> = {}) {
  return postFile(url, token, fields, await openAsBlob(path), basename(path), 'archive')
}

describe('services/web: servers added, installed, updated, removed and configured over the API (issue 20, item 1)', function () {
  this.timeout(120_000)
  let web: WebSetup
  beforeEach(async () => {
    web = await startWeb()
    afterItsUser(() => killServers(web.dataDir))
  })
  afterEach(async () => {
    await web.manager.stop()
  })
  const api = (path: string) => `${web.url}/api${path}`

  it('adds a server from a directory as an admin only, and refuses a taken name and a missing directory with coded errors', async () => {
    const dir = fakeBedrockDir()
    const moderator = await web.login('mod', 'moderator')
    expect((await http(api('/servers'), { token: moderator, body: { name: 's1', dir } })).status).to.equal(403)
    const added = await http(api('/servers'), { token: web.admin, body: { name: 's1', dir } })
    expect(added.status, added.text).to.equal(201)
    expect(added.json.server).to.include({ name: 's1', dir, profile: 'bedrock' })
    const again = await http(api('/servers'), { token: web.admin, body: { name: 's1', dir: fakeBedrockDir() } })
    expect([again.status, again.json.code]).to.deep.equal([409, 'SM_ERR_SERVER_EXISTS'])
    const missing = await http(api('/servers'), {
      token: web.admin,
      body: { name: 's2', dir: join(tempDir(), 'nowhere') },
    })
    expect([missing.status, missing.json.code]).to.deep.equal([422, 'SM_ERR_SERVER_DIR_UNUSABLE'])
    const list = await http(api('/servers'), { token: moderator })
    expect(list.json.servers.map((s: { name: string }) => s.name)).to.deep.equal(['s1'])
  })

  it('installs a server from an uploaded Bedrock zip and a Java jar (which keeps its name), and starts the Bedrock one', async () => {
    const installed = await upload(api('/servers/install'), web.admin, await bedrockRelease('1.21.50'), {
      name: 'fresh',
    })
    expect(installed.status, installed.text).to.equal(201)
    const dir = installed.json.server.dir as string
    expect(dir).to.equal(join(web.dataDir, 'server-files', 'fresh'))
    expect(readdirSync(dir).sort()).to.deep.equal([
      'allowlist.json',
      'bedrock_server',
      'release-notes.txt',
      'server.properties',
    ])
    expect((await web.manager.bus.request('servers:start', { name: 'fresh' })).status).to.equal('running')

    const jar = join(tempDir(), 'paper-1.21.4-12.jar')
    writeFileSync(jar, jarBytes())
    const java = await upload(api('/servers/install'), web.admin, jar, { name: 'paper' })
    expect(java.status, java.text).to.equal(201)
    expect(java.json.server).to.deep.include({ profile: 'java', args: ['-jar', 'paper-1.21.4-12.jar', 'nogui'] })
    expect(readdirSync(java.json.server.dir)).to.deep.equal(['paper-1.21.4-12.jar'])

    const moderator = await web.login('mod', 'moderator')
    expect((await upload(api('/servers/install'), moderator, jar, { name: 'nope' })).status).to.equal(403)
    const notes = join(tempDir(), 'notes.txt')
    writeFileSync(notes, 'not a server')
    const refused = await upload(api('/servers/install'), web.admin, notes, { name: 'junk' })
    expect([refused.status, refused.json.code]).to.deep.equal([422, 'SM_ERR_INSTALL_INVALID'])
    expect(existsSync(join(web.dataDir, 'server-files', 'junk'))).to.equal(false)
  })

  it('updates a Bedrock server from an uploaded release keeping its config and worlds, backed up first; a running one only when told to stop it', async () => {
    const dir = fakeBedrockDir()
    writeFileSync(join(dir, 'server.properties'), 'server-name=Ours\nlevel-name=Bedrock level\n')
    mkdirSync(join(dir, 'worlds', 'Bedrock level'), { recursive: true })
    writeFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), 'our world')
    writeFileSync(join(dir, 'allowlist.json'), '[{"name":"ours"}]')
    await http(api('/servers'), { token: web.admin, body: { name: 's1', dir } })
    await web.manager.bus.request('servers:start', { name: 's1' })
    const release = await bedrockRelease('1.21.60')
    const running = await upload(api('/servers/s1/update'), web.admin, release)
    expect([running.status, running.json.code]).to.deep.equal([409, 'SM_ERR_BACKUP_SERVER_RUNNING'])
    expect(existsSync(join(dir, 'release-notes.txt'))).to.equal(false)

    const updated = await upload(api('/servers/s1/update'), web.admin, release, { stop: 'true' })
    expect(updated.status, updated.text).to.equal(200)
    expect(updated.json.replaced.sort()).to.deep.equal(['bedrock_server', 'release-notes.txt'])
    expect(updated.json.backup.map((b: { kind: string }) => b.kind)).to.deep.equal(['world', 'config'])
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.include('server-name=Ours')
    expect(readFileSync(join(dir, 'allowlist.json'), 'utf8')).to.equal('[{"name":"ours"}]')
    expect(readFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), 'utf8')).to.equal('our world')
    expect(readFileSync(join(dir, 'release-notes.txt'), 'utf8')).to.equal('version 1.21.60\n')
    const status = await http(api('/servers/s1/status'), { token: web.admin })
    expect(status.json.run.status).to.equal('running')

    // A release of another game changes nothing.
    const jar = join(tempDir(), 'server.jar')
    writeFileSync(jar, jarBytes())
    const wrong = await upload(api('/servers/s1/update'), web.admin, jar, { stop: 'true' })
    expect([wrong.status, wrong.json.code]).to.deep.equal([422, 'SM_ERR_INSTALL_INVALID'])
    expect(wrong.json.message).to.include('holds a java server')
    expect(existsSync(join(dir, 'server.jar'))).to.equal(false)
  })

  it("updates a Java server's jar under the name it runs it by, keeping its world and config", async () => {
    const dir = join(tempDir(), 'paper')
    mkdirSync(join(dir, 'world'), { recursive: true })
    writeFileSync(join(dir, 'paper-1.21.1-100.jar'), jarBytes({ 'version.txt': 'old' }))
    writeFileSync(join(dir, 'server.properties'), 'level-name=world\nmotd=ours\n')
    writeFileSync(join(dir, 'world', 'level.dat'), 'our world')
    await http(api('/servers'), { token: web.admin, body: { name: 'paper', dir } })
    const jar = join(tempDir(), 'paper-1.21.4-12.jar')
    const fresh = jarBytes({ 'version.txt': 'new' })
    writeFileSync(jar, fresh)
    const updated = await upload(api('/servers/paper/update'), web.admin, jar)
    expect(updated.status, updated.text).to.equal(200)
    expect(updated.json.replaced).to.deep.equal(['paper-1.21.1-100.jar'])
    expect(readFileSync(join(dir, 'paper-1.21.1-100.jar')).equals(fresh)).to.equal(true)
    expect(readFileSync(join(dir, 'world', 'level.dat'), 'utf8')).to.equal('our world')
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.include('motd=ours')
  })

  it('refuses a start of a running server and a stop of a stopped one at once (409), not as a failed task after a 202', async () => {
    await http(api('/servers'), { token: web.admin, body: { name: 's1', dir: fakeBedrockDir() } })
    const stop = await http(api('/servers/s1/stop'), { token: web.admin, body: {} })
    expect([stop.status, stop.json.code]).to.deep.equal([409, 'SM_ERR_SERVER_NOT_RUNNING'])
    await web.manager.bus.request('servers:start', { name: 's1' })
    const start = await http(api('/servers/s1/start'), { token: web.admin, body: {} })
    expect([start.status, start.json.code]).to.deep.equal([409, 'SM_ERR_SERVER_ALREADY_RUNNING'])
    const tasks = await http(api('/tasks'), { token: web.admin })
    expect(tasks.json.tasks.map((t: { name: string }) => t.name)).to.not.include.members(['start s1', 'stop s1'])
  })

  it('removes a stopped server keeping its files, or deleting them when asked, and says which', async () => {
    const kept = fakeBedrockDir()
    const gone = fakeBedrockDir()
    await http(api('/servers'), { token: web.admin, body: { name: 'kept', dir: kept } })
    await http(api('/servers'), { token: web.admin, body: { name: 'gone', dir: gone } })
    await web.manager.bus.request('servers:start', { name: 'kept' })
    const busy = await http(api('/servers/kept'), { token: web.admin, method: 'DELETE' })
    expect([busy.status, busy.json.code]).to.deep.equal([409, 'SM_ERR_SERVER_ALREADY_RUNNING'])
    await web.manager.bus.request('servers:stop', { name: 'kept' })
    const moderator = await web.login('mod', 'moderator')
    expect((await http(api('/servers/kept'), { token: moderator, method: 'DELETE' })).status).to.equal(403)

    const keep = await http(api('/servers/kept'), { token: web.admin, method: 'DELETE' })
    expect(keep.status, keep.text).to.equal(200)
    expect(keep.json).to.include({ files: 'kept', dir: kept })
    expect(keep.json.message).to.include(`its files stay in ${kept}`)
    expect(existsSync(kept)).to.equal(true)
    const del = await http(api('/servers/gone?delete_files=true'), { token: web.admin, method: 'DELETE' })
    expect(del.status, del.text).to.equal(200)
    expect(del.json).to.include({ files: 'deleted', dir: gone })
    expect(existsSync(gone)).to.equal(false)
    expect((await http(api('/servers'), { token: web.admin })).json.servers).to.deep.equal([])
  })

  it("reads and changes a server's own settings as a moderator, all checked before any is changed, and its retention applies", async () => {
    const dir = fakeBedrockDir()
    mkdirSync(join(dir, 'worlds', 'Bedrock level'), { recursive: true })
    writeFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), 'a world')
    await http(api('/servers'), { token: web.admin, body: { name: 's1', dir } })
    const moderator = await web.login('mod', 'moderator')
    const user = await web.login('someone', 'user')
    expect((await http(api('/servers/s1/config'), { token: user })).status).to.equal(403)
    const before = await http(api('/servers/s1/config'), { token: moderator })
    const setting = (list: { key: string }[], key: string) => list.find((s) => s.key === key)
    expect(setting(before.json.settings, 'retention.backups')).to.deep.include({
      value: 3,
      own: false,
      inherits: 'retention.backups',
    })
    expect(setting(before.json.settings, 'autostart')).to.deep.include({ value: false, own: false })

    const bad = await http(api('/servers/s1/config'), {
      token: moderator,
      method: 'PUT',
      body: { settings: { autostart: true, 'retention.backups': 0 } },
    })
    expect([bad.status, bad.json.code]).to.deep.equal([422, 'SM_ERR_SERVER_SETTING_INVALID'])
    const unchanged = await http(api('/servers/s1/config'), { token: moderator })
    expect(setting(unchanged.json.settings, 'autostart')).to.deep.include({ value: false, own: false })

    const put = await http(api('/servers/s1/config'), {
      token: moderator,
      method: 'PUT',
      body: { settings: { autostart: true, 'retention.backups': 1, 'restart.enabled': false } },
    })
    expect(put.status, put.text).to.equal(200)
    expect(setting(put.json.settings, 'retention.backups')).to.deep.include({ value: 1, own: true })
    const inherit = await http(api('/servers/s1/config'), {
      token: moderator,
      method: 'PUT',
      body: { settings: { 'restart.enabled': null } },
    })
    expect(setting(inherit.json.settings, 'restart.enabled')).to.deep.include({ own: false })

    // Its own retention (1), not the global 3.
    for (let n = 0; n < 2; n++) await web.manager.bus.request('servers:backup', { name: 's1' })
    expect(readdirSync(join(web.dataDir, 'backups', 's1')).filter((f) => f.startsWith('world_'))).to.have.length(1)
  })

  it("bounds a moderator's per-server values as global settings are bounded: a custom value's size and key, and retention no higher than the global one (issue 32)", async () => {
    await http(api('/servers'), { token: web.admin, body: { name: 's1', dir: fakeBedrockDir() } })
    const moderator = await web.login('mod', 'moderator')
    const put = (token: string, settings: Record<string, unknown>) =>
      http(api('/servers/s1/config'), { token, method: 'PUT', body: { settings } })
    for (const settings of [
      { 'custom.big': 'x'.repeat(500 * 1024) },
      { 'custom.__proto__': 1 },
      { 'custom.a.constructor': 1 },
      { 'custom.a..b': 1 },
      { 'custom.ok': 1, 'custom.white space': 1 },
    ]) {
      const refused = await put(moderator, settings)
      expect([refused.status, refused.json.code], Object.keys(settings).join()).to.deep.equal([
        422,
        'SM_ERR_SERVER_SETTING_INVALID',
      ])
    }
    const above = await put(moderator, { autostart: true, 'retention.backups': 10_000 })
    expect([above.status, above.json.code]).to.deep.equal([403, 'SM_ERR_WEB_SETTING_ABOVE_ROLE'])
    expect(above.json.message).to.contain('retention.backups (3)')
    // Nothing of a refused change was stored.
    const now = (await http(api('/servers/s1/config'), { token: moderator })).json.settings as {
      key: string
      own: boolean
    }[]
    expect(now.filter((s) => s.own)).to.deep.equal([])
    // What fits is stored: a moderator's small custom value and fewer backups, an admin's more.
    expect((await put(moderator, { 'custom.motd': { text: 'hello' }, 'retention.backups': 2 })).status).to.equal(200)
    expect((await put(web.admin, { 'retention.backups': 10_000 })).status).to.equal(200)
    expect((await put(web.admin, { 'custom.big': 'x'.repeat(500 * 1024) })).json.code).to.equal(
      'SM_ERR_SERVER_SETTING_INVALID',
    )
  })
})
