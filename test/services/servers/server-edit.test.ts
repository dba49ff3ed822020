import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { gameDataDir, killServers, nextLine } from '../../helpers/game'
import { cliOk } from '../../helpers/run'
import { afterItsUser } from '../../helpers/run-end'
import { archivedState, printedState, slowFlushArgs, slowFlushDir } from '../../helpers/slow-flush'
import { http, startWeb } from '../../helpers/web'

const info = async (data: string, name: string) => JSON.parse(await cliInOk(data, ['server', 'info', name, '--json']))

describe("services/servers: a server's profile changed after it was added, and one backup deleted (issue 32, item 5)", function () {
  this.timeout(180_000)

  it('server edit sets and clears profile fields, checked as server add checks them, each change a fact that a replay rebuilds; the next backup uses it', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = slowFlushDir()
    await cliInOk(
      data,
      slowFlushArgs('g', dir, { FLUSH_MS: '1000' }, '--hot-backup', 'save-off;save-all flush;save-on'),
    )

    // Refused as an add refuses them, and nothing changes.
    const before = await info(data, 'g')
    for (const [flags, code, what] of [
      [['--ready-line', '(unclosed'], 'SM_ERR_SERVER_PROFILE_INVALID', /ready line/],
      [['--chat-line', '['], 'SM_ERR_SERVER_PROFILE_INVALID', /chat line/],
      [['--hot-backup', 'save-off;save-on'], 'SM_ERR_SERVER_PROFILE_INVALID', /hot backup/],
      [['--say-command', 'say hello'], 'SM_ERR_SERVER_PROFILE_INVALID', /say command/],
      [['--world-dir', '../elsewhere'], 'SM_ERR_SERVER_DIR_UNUSABLE', /outside/],
      [['--config', '../outside.json'], 'SM_ERR_SERVER_PROFILE_INVALID', /config file/],
      [[], 'SM_ERR_SERVER_PROFILE_INVALID', /at least one/],
    ] as const) {
      const r = await cliIn(data, ['server', 'edit', 'g', ...flags])
      expect(r.code, `${flags.join(' ')}: ${r.stderr}`).to.not.equal(0)
      expect(r.stderr).to.include(code).and.match(what)
    }
    expect(await info(data, 'g')).to.deep.equal(before)

    const edited = await cliInOk(data, [
      ...['server', 'edit', 'g', '--hot-backup-done', '^World flushed: ', '--chat-line', '^\\[Chat\\] '],
      ...['--say-command', 'say {message}', '--env', 'FLUSH_MS=1500'],
    ])
    expect(edited).to.match(/^Server 'g' changed: env, sayCommand, hotBackupDone, chatLine\.$/m)
    await cliInOk(data, ['server', 'edit', 'g', '--clear', 'say-command'])
    const after = await info(data, 'g')
    expect(after).to.deep.include({ hotBackupDone: '^World flushed: ', chatLine: '^\\[Chat\\] ' })
    expect(after.env).to.deep.equal({ FLUSH_MS: '1500' })
    expect(after).to.not.have.property('sayCommand')
    const facts = JSON.parse(await cliInOk(data, ['events', '--type', 'servers:edited', '--json']))
    expect(facts.map((f: { payload: unknown }) => f.payload)).to.deep.equal([
      {
        name: 'g',
        changes: {
          env: { FLUSH_MS: '1500' },
          chatLine: '^\\[Chat\\] ',
          sayCommand: 'say {message}',
          hotBackupDone: '^World flushed: ',
        },
      },
      { name: 'g', changes: { sayCommand: null } },
    ])
    await cliInOk(data, ['db', 'rebuild'])
    expect(await info(data, 'g')).to.deep.equal(after)

    // The done line it was given: the backup is hot and exact.
    await cliInOk(data, ['server', 'start', 'g'])
    const flushed = nextLine(RunFiles.of(data, 'g').log, /^World flushed: /)
    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--json']))
    expect(reply.method).to.equal('hot')
    const file = reply.files[0].file
    expect(await archivedState(join(data, 'backups', 'g', file))).to.equal(printedState(await flushed))

    // One backup deleted: a name the list gives, never a path; a fact.
    for (const bad of ['../g/x.zip', 'world_nope.zip', file.replace(/\.zip$/, '.mcworld')]) {
      const r = await cliIn(data, ['server', 'delete-backup', 'g', bad])
      expect(r.code, r.stderr).to.not.equal(0)
      expect(r.stderr).to.include('SM_ERR_BACKUP_NOT_FOUND')
    }
    expect(await cliInOk(data, ['server', 'delete-backup', 'g', file])).to.include(`Deleted ${file} of 'g'.`)
    expect(existsSync(join(data, 'backups', 'g', file))).to.equal(false)
    expect(readdirSync(join(data, 'backups', 'g'))).to.deep.equal([])
    const deleted = JSON.parse(await cliInOk(data, ['events', '--type', 'servers:backup_deleted', '--json']))
    expect(deleted.map((f: { payload: unknown }) => f.payload)).to.deep.equal([{ name: 'g', file }])
  })

  it("a running game's hot backup follows the profile it was started with until its next start", async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = slowFlushDir()
    await cliInOk(data, slowFlushArgs('g', dir, {}))
    await cliInOk(data, ['server', 'start', 'g'])
    await cliInOk(data, [
      ...['server', 'edit', 'g', '--hot-backup', 'save-off;save-all flush;save-on'],
      ...['--hot-backup-done', '^World flushed: '],
    ])
    // Its supervisor knows no hot backup yet: stopped and started for it, not held by commands it lacks.
    const first = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--json']))
    expect(first.method).to.equal('stop-start')
    expect(first.warning).to.match(/no hot backup/)
    // Started again by the backup: with the edit, so the next one is hot.
    const second = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--json']))
    expect(second.method).to.equal('hot')
  })

  it('PATCH /api/servers/{name} and DELETE /api/servers/{name}/backups/{file}: admin only, checked, checked', async () => {
    const web = await startWeb()
    afterItsUser(() => killServers(web.dataDir))
    const api = (path: string) => `${web.url}/api${path}`
    try {
      const dir = slowFlushDir()
      mkdirSync(join(dir, 'world'))
      writeFileSync(join(dir, 'world', 'level.dat'), 'a world')
      await cliOk(web.dataDir, slowFlushArgs('g', dir, {}))
      const moderator = await web.login('mod', 'moderator')
      const body = { readyLine: '^up$', hotBackup: 'save-off;save-all flush;save-on', hotBackupDone: '^World flushed' }
      expect((await http(api('/servers/g'), { method: 'PATCH', token: moderator, body })).status).to.equal(403)
      const bad = await http(api('/servers/g'), { method: 'PATCH', token: web.admin, body: { chatLine: '(' } })
      expect([bad.status, bad.json.code]).to.deep.equal([422, 'SM_ERR_SERVER_PROFILE_INVALID'])
      const edited = await http(api('/servers/g'), { method: 'PATCH', token: web.admin, body })
      expect(edited.status, edited.text).to.equal(200)
      expect(edited.json.changed).to.have.members(['readyLine', 'hotBackup', 'hotBackupDone'])
      expect(edited.json.server).to.deep.include({ readyLine: '^up$', hotBackupDone: '^World flushed' })
      const cleared = await http(api('/servers/g'), { method: 'PATCH', token: web.admin, body: { readyLine: null } })
      expect(cleared.json.server).to.not.have.property('readyLine')

      // A stopped server's backup, deleted over the API.
      const [made] = (await web.manager.bus.request('servers:backup', { name: 'g', type: 'world' })).files
      const file = String(made?.file)
      const path = api(`/servers/g/backups/${encodeURIComponent(file)}`)
      expect((await http(path, { method: 'DELETE', token: moderator })).status).to.equal(403)
      const missing = await http(api('/servers/g/backups/world_x.zip'), { method: 'DELETE', token: web.admin })
      expect([missing.status, missing.json.code]).to.deep.equal([404, 'SM_ERR_BACKUP_NOT_FOUND'])
      const deleted = await http(path, { method: 'DELETE', token: web.admin })
      expect(deleted.status, deleted.text).to.equal(200)
      expect(deleted.json.deleted).to.equal(file)
      expect(existsSync(join(web.dataDir, 'backups', 'g', file))).to.equal(false)
    } finally {
      await web.manager.stop()
    }
  })
})
