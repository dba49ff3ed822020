import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { databasePath } from '../../../services/events'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { makeReadOnly } from '../../helpers/read-only'
import { cli, run, spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const hashDir = (dir: string) =>
  readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort()
    .map(
      (name) =>
        `${name}:${createHash('sha256')
          .update(readFileSync(join(dir, name)))
          .digest('hex')}`,
    )

// Most commands run in this process (cliIn: the same output and exit code as a process), against
// a manager started here or one each command boots here. Cold processes stay where the process
// is the point: `npx server-manager` as a user types it, a refusal with no manager running,
// a read-only data directory (the first run of a fresh one, and a refused write), `events
// --follow` (it runs until stopped), `start` stopped by SIGTERM, and `--help` on a data
// directory that does not exist (a process that touches nothing).
describe('services/cli: server-manager as a user runs it', function () {
  this.timeout(60_000)

  it('sets and gets a custom setting with npx, and the change is in the event log', async () => {
    // npx links this folder into its own cache the first time, and would run its prepare script
    // (npm run build) there: a rebuild of dist/ under the files that run beside this one.
    const env = { SM_DATA_DIR: tempDir(), npm_config_ignore_scripts: 'true' }
    const set = await run('npx', ['server-manager', 'setting', 'set', 'custom.greeting', 'hello'], { env })
    expect(set.code, set.stderr).to.equal(0)
    const get = await run('npx', ['server-manager', 'setting', 'get', 'custom.greeting'], { env })
    expect(get.stdout).to.equal('hello\n')
    // What they recorded, read in this process.
    const events = await cliIn(env.SM_DATA_DIR, ['events', '--json'])
    const [change] = JSON.parse(events.stdout) as {
      seq: number
      time: string
      actor: string
      type: string
      payload: unknown
    }[]
    expect(change?.seq).to.equal(1)
    expect(change?.type).to.equal('after_setting_update')
    expect(change?.actor).to.match(/^cli:.+/)
    expect(Date.now() - Date.parse(change?.time ?? '')).to.be.within(0, 60_000)
    expect(change?.payload).to.deep.include({ key: 'custom.greeting', value: 'hello' })
  })

  it('parses values as JSON when they are JSON, else keeps the text', async () => {
    const dir = tempDir()
    await managerOn(dir)
    await cliIn(dir, ['setting', 'set', 'custom.n', '8080'])
    await cliIn(dir, ['setting', 'set', 'custom.obj', '{"a":[1,true]}'])
    await cliIn(dir, ['setting', 'set', 'custom.text', 'not json'])
    await cliIn(dir, ['setting', 'set', 'custom.quoted', '"8080"'])
    const get = async (key: string) => (await cliIn(dir, ['setting', 'get', key, '--json'])).stdout.trim()
    expect(await get('custom.n')).to.equal('8080')
    expect(await get('custom.obj')).to.equal('{"a":[1,true]}')
    expect(await get('custom.text')).to.equal('"not json"')
    expect(await get('custom.quoted')).to.equal('"8080"')
    const list = JSON.parse((await cliIn(dir, ['setting', 'list', '--json'])).stdout) as { web: { port: number } }
    expect(list.web.port).to.equal(11325)
  })

  it('setting set merges objects, confirms what it stored, and reads values from files and standard input', async () => {
    const dir = tempDir()
    await managerOn(dir)
    expect((await cliIn(dir, ['setting', 'set', 'web.host', '0.0.0.0'])).stdout).to.equal(
      'web.host = "0.0.0.0" (was "127.0.0.1")\n',
    )
    const merged = await cliIn(dir, ['setting', 'set', 'web', '{"port":9001}'])
    expect(merged.code).to.equal(0)
    expect(JSON.parse((await cliIn(dir, ['setting', 'get', 'web', '--json'])).stdout)).to.deep.include({
      host: '0.0.0.0',
      port: 9001,
    })
    await cliIn(dir, ['setting', 'set', 'custom.motd', '{"a":1,"b":2}'])
    const replaced = await cliIn(dir, ['setting', 'set', 'custom.motd', '{"a":3}', '--replace'])
    expect(replaced.stdout).to.contain('removed: custom.motd.b')
    const file = join(dir, 'value.json')
    writeFileSync(file, '{"from":"a file"}\n')
    await cliIn(dir, ['setting', 'set', 'custom.file', '--file', file])
    expect((await cliIn(dir, ['setting', 'get', 'custom.file', '--json'])).stdout.trim()).to.equal('{"from":"a file"}')
    const big = 'x'.repeat(300_000)
    expect((await cliIn(dir, ['setting', 'set', 'custom.big', '-'], {}, big)).code).to.equal(0)
    expect((await cliIn(dir, ['setting', 'get', 'custom.big'])).stdout).to.equal(`${big}\n`)
    await cliIn(dir, ['setting', 'set', 'custom.raw', '{a:1}', '--string'])
    expect((await cliIn(dir, ['setting', 'get', 'custom.raw'])).stdout).to.equal('{a:1}\n')
    const unset = await cliIn(dir, ['setting', 'unset', 'web.port'])
    expect(unset.stdout).to.equal('web.port: back to its default 11325\n')
  })

  it('keeps a secret setting out of events output and the log file, and gives it back to its owner', async () => {
    const dir = tempDir()
    await managerOn(dir)
    expect((await cliIn(dir, ['setting', 'set', 'custom.api_token', 's3cr3t-value'])).stdout).to.not.contain('s3cr3t')
    const events = await cliIn(dir, ['events', '--json'])
    expect(events.stdout).to.contain('[redacted]')
    expect(events.stdout).to.not.contain('s3cr3t')
    expect((await cliIn(dir, ['events'])).stdout).to.not.contain('s3cr3t')
    expect(readFileSync(join(dir, 'logs', 'server-manager.log'), 'utf8')).to.not.contain('s3cr3t')
    expect((await cliIn(dir, ['setting', 'get', 'custom.api_token'])).stdout).to.equal('[redacted]\n')
    expect((await cliIn(dir, ['setting', 'get', 'custom.api_token', '--reveal'])).stdout).to.equal('s3cr3t-value\n')
  })

  describe('bad input gives a coded error, a non-zero exit code, and writes nothing', () => {
    const cases: [string, string[], string, number][] = [
      ['an empty key', ['setting', 'set', '', 'x'], 'SM_ERR_SETTINGS_INVALID_KEY', 64],
      ['a malformed key', ['setting', 'set', 'a..b', 'x'], 'SM_ERR_SETTINGS_INVALID_KEY', 64],
      ['an unknown key', ['setting', 'set', 'nope.x', '1'], 'SM_ERR_SETTINGS_UNKNOWN_KEY', 64],
      ['an unknown key to get', ['setting', 'get', 'nosuch'], 'SM_ERR_SETTINGS_UNKNOWN_KEY', 64],
      ['a mistyped key to get', ['setting', 'get', 'web.prot'], 'SM_ERR_SETTINGS_UNKNOWN_KEY', 64],
      ['an unknown key to unset', ['setting', 'unset', 'web.prot'], 'SM_ERR_SETTINGS_UNKNOWN_KEY', 64],
      ['text that looks like JSON', ['setting', 'set', 'custom.obj', '{a:1}'], 'SM_ERR_CLI_INVALID_ARGUMENT', 64],
      ['a value and --file', ['setting', 'set', 'custom.x', '1', '--file', 'x'], 'SM_ERR_CLI_UNEXPECTED_ARGUMENT', 64],
      [
        'a missing --file',
        ['setting', 'set', 'custom.x', '--file', '/nonexistent/x'],
        'SM_ERR_CLI_INVALID_ARGUMENT',
        64,
      ],
      ['a mistyped command', ['setings', 'get', 'x'], 'SM_ERR_CLI_UNKNOWN_COMMAND', 64],
      ['help for no command', ['help', 'nosuch'], 'SM_ERR_CLI_UNKNOWN_COMMAND', 64],
      ['a --limit that is not a number', ['events', '--limit', 'abc'], 'SM_ERR_CLI_INVALID_ARGUMENT', 64],
      ['a --limit of 0', ['events', '--limit', '0'], 'SM_ERR_CLI_INVALID_ARGUMENT', 64],
      ['an --after that is not a number', ['events', '--after', 'abc'], 'SM_ERR_CLI_INVALID_ARGUMENT', 64],
      ['a 300-character plugin name', ['plugin', 'new', 'a'.repeat(300)], 'SM_ERR_PLUGIN_INVALID_NAME', 65],
      [
        'a payload that is not an object',
        ['event', 'trigger', 'a:b', '--payload', '"x"'],
        'SM_ERR_PLUGIN_INVALID_PAYLOAD',
        64,
      ],
      ['a value of the wrong type', ['setting', 'set', 'web.port', 'eighty'], 'SM_ERR_SETTINGS_INVALID_VALUE', 64],
      ['a missing argument', ['setting', 'set', 'custom.x'], 'SM_ERR_CLI_MISSING_ARGUMENT', 64],
      ['an unknown flag', ['events', '--colour'], 'SM_ERR_CLI_UNKNOWN_FLAG', 64],
      ['a bad --since', ['events', '--since', 'last tuesday'], 'SM_ERR_EVENTS_INVALID_QUERY', 64],
      ['a key with no value', ['setting', 'get', 'custom.never'], 'SM_ERR_SETTINGS_NOT_FOUND', 1],
    ]
    // One manager for them all, each command in-process against it: each still leaves the event
    // log empty. A refusal with no manager running is the process's own (the cases below this).
    let dir: string
    before(async () => {
      dir = tempDir()
      await managerOn(dir)
    })
    for (const [what, args, code, exit] of cases) {
      it(what, async () => {
        const result = await cliIn(dir, args)
        expect(result.stderr).to.match(new RegExp(`^Error \\[${code}\\]: `))
        expect(result.code).to.equal(exit)
        const events = await cliIn(dir, ['events', '--json'])
        expect(JSON.parse(events.stdout)).to.deep.equal([])
      })
    }
    it('a refusal with no manager running: a cold process, the same code and exit code', async () => {
      const cold = tempDir()
      const result = await cli(cold, ['setting', 'set', 'nope.x', '1'])
      expect(result.stderr).to.match(/^Error \[SM_ERR_SETTINGS_UNKNOWN_KEY\]: /)
      expect(result.code).to.equal(64)
      expect(JSON.parse((await cliIn(cold, ['events', '--json'])).stdout)).to.deep.equal([])
    })
  })

  it('suggests the flag a mistyped one means (issue 20)', async () => {
    const result = await cliIn(tempDir(), ['events', '--typ', 'after_backup'])
    expect(result.code).to.equal(64)
    expect(result.stderr).to.match(
      /^Error \[SM_ERR_CLI_UNKNOWN_FLAG\]: Nonexistent flag: --typ\. Did you mean '--type' for '--typ'\?/,
    )
  })

  it("reads 'events --type a,b' as both types, as the web filter does (issue 20)", async () => {
    const dir = tempDir()
    await managerOn(dir)
    await cliInOk(dir, ['setting', 'set', 'custom.x', '1'])
    await cliInOk(dir, ['server', 'add', 's1', '--dir', tempDir(), '--command', 'true'])
    const types = async (args: string[]) =>
      (JSON.parse(await cliInOk(dir, ['events', '--json', ...args])) as { type: string }[]).map((e) => e.type)
    const both = await types(['--type', 'after_setting_update, servers:add*'])
    expect([...new Set(both)].sort()).to.deep.equal(['after_setting_update', 'servers:added'])
    expect(await types(['--type', 'after_setting_update', '--type', 'servers:added'])).to.deep.equal(both)
  })

  it('refuses a corrupt database file, leaving it and its folder untouched', async () => {
    const dir = tempDir()
    writeFileSync(databasePath(dir), Buffer.alloc(8192, 7))
    const before = hashDir(dir)
    const result = await cliIn(dir, ['setting', 'set', 'custom.x', '1'])
    expect(result.stderr).to.match(/^Error \[SM_ERR_DB_CORRUPT\]: .*left untouched/)
    expect(result.code).to.equal(65)
    expect(hashDir(dir).filter((entry) => !entry.startsWith('logs'))).to.deep.equal(before)
  })

  it('refuses a read-only data directory with a coded error and changes nothing', async () => {
    const fresh = tempDir()
    const restoreFresh = makeReadOnly(fresh)
    try {
      const result = await cli(fresh, ['setting', 'set', 'custom.x', '1'])
      expect(result.stderr).to.match(/^Error \[SM_ERR_(DATA_DIR_UNUSABLE|DB_READONLY)\]: /)
      expect(result.code).to.be.oneOf([73, 74])
      expect(readdirSync(fresh)).to.deep.equal([])
    } finally {
      restoreFresh()
    }

    const used = tempDir()
    await cliInOk(used, ['setting', 'set', 'custom.x', '1'])
    const before = hashDir(used).filter((entry) => !entry.startsWith('logs'))
    const restoreUsed = makeReadOnly(used)
    try {
      const result = await cli(used, ['setting', 'set', 'custom.x', '2'])
      expect(result.stderr).to.match(/^Error \[SM_ERR_(DATA_DIR_UNUSABLE|DB_READONLY)\]: /)
      expect(result.code).to.be.oneOf([73, 74])
    } finally {
      restoreUsed()
    }
    expect(hashDir(used).filter((entry) => !entry.startsWith('logs'))).to.deep.equal(before)
    expect((await cliIn(used, ['setting', 'get', 'custom.x'])).stdout).to.equal('1\n')
  })

  it('follows the event log live, seeing changes made by another process', async () => {
    const dir = tempDir()
    await cliInOk(dir, ['setting', 'set', 'custom.before', '1'])
    const follower = spawnCli(dir, ['events', '--follow', '--type', 'after_*'])
    try {
      await waitForLine(follower, /custom\.before/)
      const seen = waitForLine(follower, /custom\.after/)
      await cliInOk(dir, ['setting', 'set', 'custom.after', '2'])
      expect(await seen).to.match(/^#2 .* after_setting_update /)
    } finally {
      expect(await stop(follower, 'SIGINT')).to.equal(0)
    }
  })

  it('runs the manager in the foreground, reporting each service, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir()
    const manager = await spawnManager(dir)
    let output = ''
    manager.stdout.on('data', (chunk: Buffer) => {
      output += chunk
    })
    await waitForLine(manager, /^ready in \d+ ms/)
    expect(await stop(manager)).to.equal(0)
    for (const service of ['log', 'events', 'settings', 'plugins'])
      expect(output).to.match(new RegExp(`✔ ${service} +[\\d.]+ ms`))
    expect(output).to.contain('SIGTERM: stopping')
    expect(output).to.contain('stopped')
    const log = readFileSync(join(dir, 'logs', 'server-manager.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: string })
    expect(log.some((line) => /^started \d+ services/.test(line.message))).to.equal(true)
  })

  it('rebuilds, checks and prunes the database', async () => {
    const dir = tempDir()
    await cliIn(dir, ['setting', 'set', 'custom.a', '1'])
    await cliIn(dir, ['setting', 'set', 'custom.b', '2'])
    const rebuild = await cliIn(dir, ['db', 'rebuild', '--json'])
    expect(JSON.parse(rebuild.stdout)).to.deep.include({
      projections: [
        'settings',
        'setting_secrets',
        'users',
        'servers',
        'server_status',
        'schedules',
        'player_history',
        'plugins',
      ],
      replayed: 2,
    })
    const check = await cliIn(dir, ['db', 'check'])
    expect(check.code).to.equal(0)
    expect(check.stdout).to.contain('integrity: ok').and.to.contain('equal to a replay')
    const prune = await cliIn(dir, ['db', 'prune'])
    expect(prune.stdout).to.equal('Nothing to prune.\n')
    expect((await cliIn(dir, ['setting', 'get', 'custom.b'])).stdout).to.equal('2\n')
  })

  it('prints help and the version without touching the data directory', async () => {
    const dir = join(tempDir(), 'never-created')
    const help = await cli(dir, ['--help'])
    expect(help.stdout).to.contain('setting').and.to.contain('events').and.to.contain('db')
    const version = await cliIn(dir, ['--version'])
    expect(version.stdout).to.match(/^server-manager\/\d+\.\d+\.\d+ /)
    expect(() => readdirSync(dir)).to.throw()
  })
})
