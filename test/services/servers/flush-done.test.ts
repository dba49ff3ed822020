import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { gameDataDir, nextLine, runState } from '../../helpers/game'
import { archivedState, printedState, slowFlushArgs, slowFlushDir } from '../../helpers/slow-flush'

const HOT_BACKUP = ['--hot-backup', 'save-off;save-all flush;save-on']

describe('services/servers: a hot backup copies only after the flush says it is done (issue 32, item 2)', function () {
  this.timeout(120_000)

  it('waits for the done line of a flush that takes 2.5 s, printing nothing meanwhile: the archive is byte-exact to the flushed world, and saving resumes only after it', async () => {
    const data = gameDataDir()
    await cliInOk(
      data,
      slowFlushArgs('g', slowFlushDir(), { FLUSH_MS: '2500' }, ...HOT_BACKUP, '--hot-backup-done', '^World flushed: '),
    )
    const info = JSON.parse(await cliInOk(data, ['server', 'info', 'g', '--json']))
    expect(info.hotBackupDone).to.equal('^World flushed: ')
    await cliInOk(data, ['server', 'start', 'g'])
    const log = RunFiles.of(data, 'g').log
    const pid = runState(data, 'g')?.game?.pid
    const flushed = nextLine(log, /^World flushed: /)
    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--json']))
    expect(reply.method, JSON.stringify(reply)).to.equal('hot')
    expect(reply.warning).to.equal(undefined)
    const archive = join(data, 'backups', 'g', reply.files[0].file)
    expect(await archivedState(archive)).to.equal(printedState(await flushed))
    // `save-on` went only after the flush ended.
    const lines = readFileSync(log, 'utf8').split('\n')
    expect(lines.indexOf('Saving is on')).to.be.greaterThan(lines.findIndex((l) => /^World flushed: /.test(l)))
    expect(runState(data, 'g')?.game?.pid).to.equal(pid)
  })

  it('stops, copies and starts a server whose hot-backup commands have no done line, and says so: never a copy taken on a timer', async () => {
    const data = gameDataDir()
    await cliInOk(data, slowFlushArgs('g', slowFlushDir(), { FLUSH_MS: '2500' }, ...HOT_BACKUP))
    await cliInOk(data, ['server', 'start', 'g'])
    const log = RunFiles.of(data, 'g').log
    const pid = runState(data, 'g')?.game?.pid
    const stopping = nextLine(log, /^Stopping: /)
    const r = await cliIn(data, ['server', 'backup', 'g', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    const reply = JSON.parse(r.stdout)
    expect(reply.method).to.equal('stop-start')
    expect(reply.warning)
      .to.match(
        /^'g' was stopped for a backup and started again: its hot-backup commands have no line that says the flush is done/,
      )
      .and.include('--hot-backup-done')
    expect(r.stderr).to.include(`Warning: ${reply.warning}`)
    expect(await archivedState(join(data, 'backups', 'g', reply.files[0].file))).to.equal(printedState(await stopping))
    expect(readFileSync(log, 'utf8')).to.not.match(/Flushing the world/)
    const after = runState(data, 'g')
    expect(after?.status).to.equal('running')
    expect(after?.game?.pid).to.not.equal(pid)
  })

  it('refuses a done line that is not a regular expression, or one with no commands to follow', async () => {
    const data = gameDataDir()
    for (const [extra, reason] of [
      [[...HOT_BACKUP, '--hot-backup-done', '(unclosed'], /not a regular expression/],
      [['--hot-backup-done', '^Saved'], /give the commands too/],
    ] as const) {
      const r = await cliIn(data, slowFlushArgs('g', slowFlushDir(), {}, ...extra))
      expect(r.code, r.stdout).to.not.equal(0)
      expect(r.stderr).to.include('SM_ERR_SERVER_PROFILE_INVALID').and.match(reason)
    }
  })
})
