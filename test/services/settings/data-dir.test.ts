import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'
import { cliOk, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/*
 * Processes where the process is the point: the first commands on a fresh data directory (the
 * umask bin/run.js sets before anything is created), and the managers (`server-manager start`)
 * whose files, socket, database journal, server run directories and backups must be private and
 * whose files another user must not read. The commands to those managers, and the checks of a
 * directory opened since (a one-shot command and a client) or owned by another user, run
 * in-process (cliIn): that check is the CLI session's (services/cli/session.ts) and the in-process
 * manager's, the same code in this process.
 */

const isRoot = process.getuid?.() === 0

/** Every path under `dir` (itself included) whose mode lets group or others in, with that mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = []
  const walk = (path: string): void => {
    const stat = lstatSync(path)
    if ((stat.mode & 0o077) !== 0) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`)
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name))
  }
  walk(dir)
  return found
}

const modeOf = (path: string) => statSync(path).mode & 0o777

/** A manager in the foreground on any free port (set by spawnManager), once it is ready. */
async function startManager(data: string) {
  const manager = await spawnManager(data)
  try {
    await waitForLine(manager, /^ready in \d+ ms/)
  } catch (error) {
    manager.kill('SIGKILL')
    throw error
  }
  return manager
}

describe('services/settings: the data directory is private', function () {
  this.timeout(60_000)

  it('a first command creates the data directory 0700 and every file in it 0600', async () => {
    const data = join(tempDir(), 'data')
    await cliOk(data, ['setting', 'set', 'custom.a', '1'])
    await cliOk(data, ['plugin', 'list'])
    expect(modeOf(data)).to.equal(0o700)
    expect(modeOf(join(data, 'server-manager.db'))).to.equal(0o600)
    expect(modeOf(join(data, 'logs', 'server-manager.log'))).to.equal(0o600)
    expect(openToOthers(data)).to.deep.equal([])
  })

  it('a manager, its socket, the database with its -wal and -shm, a server run directory and a backup are all private', async () => {
    const data = gameDataDir()
    const manager = await startManager(data)
    try {
      await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
      await cliInOk(data, ['server', 'start', 's1'])
      await cliInOk(data, ['server', 'backup', 's1'])
      for (const file of ['server-manager.db-wal', 'server-manager.db-shm', 'manager.sock', 'manager.json'])
        expect(existsSync(join(data, file)), file).to.equal(true)
      expect(existsSync(join(data, 'servers', 's1', 'supervisor.sock'))).to.equal(true)
      expect(readdirSync(join(data, 'backups', 's1'))).to.have.length.greaterThan(0)
      expect(modeOf(join(data, 'server-manager.db-wal'))).to.equal(0o600)
      expect(modeOf(join(data, 'server-manager.db-shm'))).to.equal(0o600)
      expect(openToOthers(data)).to.deep.equal([])
      await cliInOk(data, ['server', 'stop', 's1'])
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
    expect(openToOthers(data)).to.deep.equal([])
  })

  it('tightens a data directory of its own user that others may read, and says so', async () => {
    const data = join(tempDir(), 'data')
    await cliInOk(data, ['setting', 'set', 'custom.a', '1'])
    chmodSync(data, 0o755)
    const local = await cliIn(data, ['setting', 'get', 'custom.a'])
    expect(local.code, local.stderr).to.equal(0)
    expect(local.stderr).to.contain('open to other users (mode 0755); it is now 0700')
    expect(modeOf(data)).to.equal(0o700)

    // A client of a running manager checks too.
    await managerOn(data)
    chmodSync(data, 0o775)
    const remote = await cliIn(data, ['setting', 'get', 'custom.a'])
    expect(remote.code, remote.stderr).to.equal(0)
    expect(remote.stderr).to.contain('open to other users (mode 0775); it is now 0700')
    expect(modeOf(data)).to.equal(0o700)
  })

  it('refuses a data directory open to others that another user owns, saying what to run (as root)', async function () {
    if (!isRoot) {
      console.log('      (skipped: changing a directory owner needs root)')
      this.skip()
    }
    const data = join(tempDir(), 'data')
    mkdirSync(data, { mode: 0o755 })
    chmodSync(data, 0o755)
    chownSync(data, 65534, 65534)
    const r = await cliIn(data, ['setting', 'list'])
    expect(r.code).to.equal(77)
    expect(r.stderr).to.contain('SM_ERR_DATA_DIR_EXPOSED').and.to.contain(`chmod 700 '${data}'`)
    expect(readdirSync(data)).to.deep.equal([])
    expect(modeOf(data)).to.equal(0o755)
  })

  it('another local user (nobody) cannot read the database or the logs of a running manager (as root)', async function () {
    const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(existsSync)
    if (!isRoot || !runuser) {
      console.log(`      (skipped: ${isRoot ? 'no runuser on this machine' : 'switching to user nobody needs root'})`)
      this.skip()
    }
    const parent = tempDir()
    chmodSync(parent, 0o755) // only the data directory itself may stand in nobody's way
    const asNobody = (args: string[]) =>
      spawnSync(runuser as string, ['-u', 'nobody', '--', ...args], { encoding: 'utf8' })
    const control = join(parent, 'control')
    writeFileSync(control, 'readable', { mode: 0o644 })
    expect(asNobody(['cat', control]).stdout, 'the check itself works').to.equal('readable')

    const data = join(parent, 'data')
    const manager = await startManager(data)
    try {
      for (const file of ['server-manager.db', 'server-manager.db-wal', 'logs/server-manager.log']) {
        const read = asNobody(['cat', join(data, file)])
        expect(read.status, file).to.not.equal(0)
        expect(read.stderr, file).to.contain('Permission denied')
      }
      expect(asNobody(['ls', data]).status).to.not.equal(0)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })
})
