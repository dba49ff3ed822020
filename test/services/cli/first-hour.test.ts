import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'
import { withManager } from '../../helpers/manager'
import { cli } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/** Issue 34 item 7: the first hour in the CLI. */
describe('the first hour in the CLI: the first user, a token with no admin, the help', () => {
  it('lists tasks once in the help, as a command whose help lists tasks cancel', async () => {
    const help = await cliInOk(tempDir(), ['--help'])
    expect(help.match(/^ {2}tasks\b/gm)).to.have.length(1)
    expect(await cliInOk(tempDir(), ['tasks', '--help'])).to.match(/^ {2}tasks cancel {2}/m)
  })

  it('makes the first user of a data directory an admin, and refuses a first user of another role', async () => {
    const dir = tempDir()
    const refused = await cliIn(
      dir,
      ['user', 'create', 'ursula', '--role', 'user', '--password-stdin'],
      {},
      'a long password\n',
    )
    expect(refused.code).to.equal(65)
    expect(refused.stderr).to.include('SM_ERR_AUTH_FIRST_ADMIN').and.to.include('--role admin')
    expect(JSON.parse(await cliInOk(dir, ['user', 'list', '--json']))).to.deep.equal([])
    const first = await cliIn(dir, ['user', 'create', 'boss', '--password-stdin'], {}, 'a long password\n')
    expect(first.code, first.stderr).to.equal(0)
    expect(first.stdout).to.equal("Created the admin 'boss', the first user (an admin).\n")
    expect(await cliInOk(dir, ['user', 'create', 'ursula', '--password-stdin'], {}, 'a long password\n')).to.equal(
      "Created the user 'ursula'.\n",
    )
  })

  it('says no admin exists instead of acting for another user, and works with --user', async () => {
    const dir = tempDir()
    // No admin: the CLI makes the first user one, so alice comes in through the bus (as an
    // older data directory may have her).
    await withManager(
      (manager) =>
        manager.bus.request('auth:create_user', { username: 'alice', password: 'a long password', role: 'user' }),
      { dataDir: dir },
    )
    const refused = await cliIn(dir, ['token', 'create', 'ci', '--role', 'user'])
    expect(refused.code).to.equal(65)
    expect(refused.stderr).to.include('SM_ERR_AUTH_NO_ADMIN').and.to.include('--user')
    expect(refused.stdout).to.equal('')
    expect(JSON.parse(await cliInOk(dir, ['token', 'list', '--json']))).to.deep.equal([])
    const made = await cliIn(dir, ['token', 'create', 'ci', '--role', 'user', '--user', 'alice'])
    expect(made.code, made.stderr).to.equal(0)
    expect(made.stderr).to.include('acting for alice')
  })

  it('backs up a world of many files without a warning of a listener leak (a real process)', async () => {
    const data = gameDataDir()
    const dir = fakeBedrockDir()
    const db = join(dir, 'worlds', 'Bedrock level', 'db')
    mkdirSync(db, { recursive: true })
    for (let i = 0; i < 30; i++) writeFileSync(join(db, `${String(i).padStart(6, '0')}.ldb`), `chunk ${i}\n`)
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    const backup = await cli(data, ['server', 'backup', 's1'])
    expect(backup.code, backup.stderr).to.equal(0)
    expect(backup.stderr).to.equal('')
  })

  it('answers a start that ends before the game is up with an error and its last lines, and does not restart it', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_EXIT_BEFORE_READY: '3' } })])
    const start = await cliIn(data, ['server', 'start', 's1'])
    expect(start.code).to.equal(70)
    expect(start.stderr).to.include(
      "SM_ERR_SERVER_START_FAILED]: The server 's1' did not start: it ended before it was up (exit code 3), and is not restarted: it would fail alike",
    )
    expect(start.stderr).to.include('[ERROR] Network port 19132 is already in use.')
    const status = await cliIn(data, ['server', 'status', 's1', '--json'])
    expect(status.code).to.equal(2)
    expect(JSON.parse(status.stdout)).to.include({ status: 'error', restarts: 0 })
  })
})
