import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { gameDataDir, nextLine } from '../../helpers/game'
import { cli, cliOk } from '../../helpers/run'
import { archivedState, printedState, slowFlushArgs, slowFlushDir } from '../../helpers/slow-flush'

const info = async (data: string, name: string) => JSON.parse(await cliOk(data, ['server', 'info', name, '--json']))

describe("services/servers: a server's profile changed after it was added, and one backup deleted (issue 32, item 5)", function () {
  this.timeout(180_000)

  it('server edit sets and clears profile fields, checked as server add checks them, each change a fact that a replay rebuilds; the next backup uses it', async () => {
    const data = gameDataDir()
    const dir = slowFlushDir()
    await cliOk(data, slowFlushArgs('g', dir, { FLUSH_MS: '1000' }, '--hot-backup', 'save-off;save-all flush;save-on'))

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
      const r = await cli(data, ['server', 'edit', 'g', ...flags])
      expect(r.code, `${flags.join(' ')}: ${r.stderr}`).to.not.equal(0)
      expect(r.stderr).to.include(code).and.match(what)
    }
    expect(await info(data, 'g')).to.deep.equal(before)

    const edited = await cliOk(data, [
      ...['server', 'edit', 'g', '--hot-backup-done', '^World flushed: ', '--chat-line', '^\\[Chat\\] '],
      ...['--say-command', 'say {message}', '--env', 'FLUSH_MS=1500'],
    ])
    expect(edited).to.match(/^Server 'g' changed: env, sayCommand, hotBackupDone, chatLine\.$/m)
    await cliOk(data, ['server', 'edit', 'g', '--clear', 'say-command'])
    const after = await info(data, 'g')
    expect(after).to.deep.include({ hotBackupDone: '^World flushed: ', chatLine: '^\\[Chat\\] ' })
    expect(after.env).to.deep.equal({ FLUSH_MS: '1500' })
    expect(after).to.not.have.property('sayCommand')
    const facts = JSON.parse(await cliOk(data, ['events', '--type', 'servers:edited', '--json']))
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
    await cliOk(data, ['db', 'rebuild'])
    expect(await info(data, 'g')).to.deep.equal(after)

    // The done line it was given: the backup is hot and exact.
    await cliOk(data, ['server', 'start', 'g'])
    const flushed = nextLine(RunFiles.of(data, 'g').log, /^World flushed: /)
    const reply = JSON.parse(await cliOk(data, ['server', 'backup', 'g', '--json']))
    expect(reply.method).to.equal('hot')
    const file = reply.files[0].file
    expect(await archivedState(join(data, 'backups', 'g', file))).to.equal(printedState(await flushed))

    // One backup deleted: a name the list gives, never a path; a fact.
    for (const bad of ['../g/x.zip', 'world_nope.zip', file.replace(/\.zip$/, '.mcworld')]) {
      const r = await cli(data, ['server', 'delete-backup', 'g', bad])
      expect(r.code, r.stderr).to.not.equal(0)
      expect(r.stderr).to.include('SM_ERR_BACKUP_NOT_FOUND')
    }
    expect(await cliOk(data, ['server', 'delete-backup', 'g', file])).to.include(`Deleted ${file} of 'g'.`)
    expect(existsSync(join(data, 'backups', 'g', file))).to.equal(false)
    expect(readdirSync(join(data, 'backups', 'g'))).to.deep.equal([])
    const deleted = JSON.parse(await cliOk(data, ['events', '--type', 'servers:backup_deleted', '--json']))
    expect(deleted.map((f: { payload: unknown }) => f.payload)).to.deep.equal([{ name: 'g', file }])
  })
})
