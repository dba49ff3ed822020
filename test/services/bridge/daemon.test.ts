import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, managerOn } from '../../helpers/cli-in-process'
import { plugin, writePlugins } from '../../helpers/plugins'
import { cli, cliStart, loadedModules, spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/*
 * Most commands here run in-process (cliIn): as clients of the running manager over its bridge
 * socket, or booting one for the command when none runs, as a process would. What stays a
 * process, because the process is the point: the manager whose commands come from clients, whose
 * PID status names and whose stop removes its socket; a first client process and a veto's exit 1
 * seen from a process; the client whose loaded modules are read (its require cache); the
 * `--follow` client; a one-shot command's first run on a data directory and a read-only command
 * that must run no plugin code; a second `start` refused while the first runs, the first killed
 * with SIGKILL; and a manager that exits 74 when its database is deleted.
 */

/** A plugin that counts its onLoad calls in a file, receives counter:ping, and vetoes custom.locked. */
const COUNTER = plugin(
  'Counter',
  `override async onLoad() {
    require('node:fs').appendFileSync(require('node:path').join(process.env.SM_DATA_DIR, 'loads.txt'), 'load\\n')
    await this.api.listenForEvent('counter:ping', (payload) => {
      require('node:fs').appendFileSync(require('node:path').join(process.env.SM_DATA_DIR, 'pings.txt'), JSON.stringify(payload) + '\\n')
    })
  }
  beforeSettingUpdate({ key }: { key: string }) {
    if (key === 'custom.locked') return { cancel: true, reason: 'the counter keeps it' } as const
    return undefined
  }`,
)

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [])

describe('services/bridge: one manager per data directory, the CLI as its client', function () {
  this.timeout(120_000)

  it('runs every command in the running manager: plugins load once, hooks veto, listeners receive', async () => {
    const dir = tempDir()
    writePlugins(dir, { 'counter.ts': COUNTER })
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      expect((await cli(dir, ['plugin', 'enable', 'counter'])).stdout).to.equal(
        "Plugin 'counter' enabled. State: loaded.\n",
      )
      const commands = [
        ['setting', 'set', 'custom.x', '1'],
        ['setting', 'get', 'custom.x'],
        ['plugin', 'list'],
        ['events', '--limit', '5'],
        ['event', 'trigger', 'counter:ping', '--payload', '{"n":1}'],
      ]
      for (let round = 0; round < 4; round++) {
        for (const args of commands) expect((await cliIn(dir, args)).code, args.join(' ')).to.equal(0)
      }
      expect(lines(join(dir, 'loads.txt'))).to.deep.equal(['load'])
      expect(lines(join(dir, 'pings.txt'))).to.have.length(4)
      const trigger = await cliIn(dir, ['event', 'trigger', 'counter:ping', '--payload', '{"n":2}'])
      expect(trigger.stdout).to.contain('delivered to 1 of 1 listeners')
      expect(trigger.stdout).to.contain(
        `The listeners ran in the running manager; what they logged is in ${join(dir, 'logs', 'server-manager.log')} (and on the manager's own output).`,
      )
      const vetoed = await cli(dir, ['setting', 'set', 'custom.locked', '1'])
      expect(vetoed.stderr).to.contain(
        "SM_ERR_SETTINGS_UPDATE_CANCELLED]: The change to 'custom.locked' was cancelled by 'plugin:counter'",
      )
      expect(vetoed.code).to.equal(1)
      const [fact] = JSON.parse(
        (await cliIn(dir, ['events', '--type', 'after_setting_update', '--json', '--limit', '1'])).stdout,
      )
      expect(fact.actor).to.match(/^cli:/)
      const status = JSON.parse((await cliIn(dir, ['status', '--json'])).stdout)
      expect(status).to.include({ running: true, pid: manager.pid, dataDir: dir })
      expect(status.plugins).to.deep.equal(['counter'])
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
    expect(existsSync(join(dir, 'manager.sock'))).to.equal(false)
    expect(JSON.parse((await cliIn(dir, ['status', '--json'])).stdout)).to.deep.equal({ running: false, dataDir: dir })
  })

  it('answers a client command without loading SQLite, jiti, zod or any plugin code in the client', async () => {
    const dir = tempDir()
    writePlugins(dir, { 'counter.ts': COUNTER })
    // The manager runs in this process: the client, a process of its own, is what is looked at.
    await managerOn(dir)
    expect((await cliIn(dir, ['plugin', 'enable', 'counter'])).stdout).to.equal(
      "Plugin 'counter' enabled. State: loaded.\n",
    )
    const { stdout, loaded } = await loadedModules(dir, ['setting', 'get', 'plugins.hook_timeout_ms'])
    expect(stdout).to.equal('10000\n')
    expect(loaded.some((path) => path.includes('/cli/manager-command.js'))).to.equal(true)
    for (const heavy of [
      '/node_modules/sqlite3/',
      '/node_modules/jiti/',
      '/node_modules/zod/',
      '/services/events/',
      join(dir, 'plugins'),
    ])
      expect(
        loaded.filter((path) => path.includes(heavy)),
        heavy,
      ).to.deep.equal([])
  })

  it('follows the event log of a running manager', async () => {
    const dir = tempDir()
    await managerOn(dir)
    const follow = spawnCli(dir, ['events', '--follow', '--json', '--type', 'after_setting_update'])
    const line = waitForLine(follow, /"custom\.followed"/)
    expect((await cliIn(dir, ['setting', 'set', 'custom.followed', '1'])).code).to.equal(0)
    const event = JSON.parse(await line)
    expect(event).to.include({ type: 'after_setting_update' })
    expect(event.actor).to.match(/^cli:/)
    expect(await stop(follow)).to.equal(0)
  })

  it('runs the same commands in-process when no manager runs', async () => {
    const dir = tempDir()
    writePlugins(dir, { 'counter.ts': COUNTER })
    expect((await cli(dir, ['plugin', 'enable', 'counter'])).code).to.equal(0)
    expect((await cliIn(dir, ['setting', 'set', 'custom.x', '2'])).stdout).to.equal('custom.x = 2\n')
    expect((await cliIn(dir, ['setting', 'get', 'custom.x'])).stdout).to.equal('2\n')
    expect((await cliIn(dir, ['event', 'trigger', 'counter:ping'])).stdout).to.contain('delivered to 1 of 1')
    expect((await cliIn(dir, ['setting', 'set', 'custom.locked', '1'])).code).to.equal(1)
    // Read-only commands discover plugins but run none: one in a process of its own, the rest in this one.
    const before = lines(join(dir, 'loads.txt')).length
    expect((await cli(dir, ['plugin', 'list'])).code, 'plugin list').to.equal(0)
    for (const args of [['setting', 'get', 'custom.x'], ['events'], ['db', 'check']])
      expect((await cliIn(dir, args)).code, args.join(' ')).to.equal(0)
    expect(lines(join(dir, 'loads.txt'))).to.have.length(before)
  })

  it('refuses a second manager naming the first one, and recovers from kill -9 at the next command', async () => {
    const dir = tempDir()
    const first = await spawnManager(dir)
    await waitForLine(first, /^ready in/)
    const second = await cliStart(dir)
    expect(second.code).to.equal(75)
    expect(second.stderr).to.contain(
      `Error [SM_ERR_MANAGER_RUNNING]: A manager already runs on '${dir}' (PID ${first.pid})`,
    )
    expect(await stop(first, 'SIGKILL')).to.equal(null)
    expect(existsSync(join(dir, 'manager.sock'))).to.equal(true)
    const after = await cliIn(dir, ['setting', 'set', 'custom.after', '1'])
    expect(after.code).to.equal(0)
    expect(existsSync(join(dir, 'manager.sock'))).to.equal(false)
    // A manager starts again on the directory (in this process), and serves what was set.
    await managerOn(dir)
    expect((await cliIn(dir, ['setting', 'get', 'custom.after'])).stdout).to.equal('1\n')
  })

  it('stops with a coded error when its database is deleted under it', async () => {
    const dir = tempDir()
    const manager = await spawnManager(dir)
    await waitForLine(manager, /^ready in/)
    const exited = new Promise<number | null>((resolve) => manager.once('exit', resolve))
    const error = waitForLine(manager, /SM_ERR_DB_REPLACED\]/, { stream: 'stderr' })
    const { rmSync } = await import('node:fs')
    rmSync(join(dir, 'server-manager.db'))
    expect(await error).to.contain('was deleted while the manager was running')
    expect(await exited).to.equal(74)
  })
})
