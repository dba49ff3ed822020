import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { plugin, writePlugins } from '../../helpers/plugins'
import { cli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// The commands run in this process (cliIn: the same output and exit code as a process), as
// clients of a spawned manager or, where none runs, each booting one here as a cold process
// boots one in its own. The spawned managers stay processes: a user's `start`, whose console
// lines (a plugin's greeting, its load and unload) the tests wait on. One refusal stays a cold
// process: a broken plugin's import refused with its code and exit code as a shell sees them.

const logLines = (dir: string) =>
  readFileSync(join(dir, 'logs', 'server-manager.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { name: string; message: string })

const greetings = (dir: string) =>
  logLines(dir).filter((l) => l.name === 'plugin:greeter' && l.message.includes('from the greeter plugin'))

describe('services/cli: plugin commands as a user runs them', function () {
  this.timeout(90_000)

  it('shows the greeting in the log on the next start and after plugin reload, once greeter is enabled', async () => {
    const dir = tempDir()
    await cliIn(dir, ['setting', 'set', 'plugins.dev_examples', 'true'])
    const enable = await cliIn(dir, ['plugin', 'enable', 'greeter'])
    expect(enable.stdout).to.equal("Plugin 'greeter' enabled. State: loaded.\n")
    const before = greetings(dir).length

    const manager = await spawnManager(dir)
    const greeting = () => waitForLine(manager, /Hello from the greeter plugin!/, { stream: 'stderr' })
    try {
      const first = greeting()
      await waitForLine(manager, /^ready in/)
      await first
      expect(greetings(dir).length).to.be.greaterThan(before)
      // The reload runs in the running manager (the CLI is its client): it greets again, with no restart.
      const second = greeting()
      const reload = await cliIn(dir, ['plugin', 'reload'])
      expect(reload.stdout).to.match(/^Loaded 1 plugins \(greeter\)/)
      await second
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('loads a plugin in a running manager when another process enables it, and unloads it on disable', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'hello.ts': plugin(
        'Hello',
        "override onLoad() { this.logger.info('hello is alive') }\n  override onUnload() { this.logger.info('hello says bye') }",
      ),
    })
    const manager = await spawnManager(dir)
    const seen = (pattern: RegExp) => waitForLine(manager, pattern, { stream: 'stderr' })
    try {
      await waitForLine(manager, /^ready in/)
      const alive = seen(/\[plugin:hello\] hello is alive/)
      await cliIn(dir, ['plugin', 'enable', 'hello'])
      await alive
      const bye = seen(/\[plugin:hello\] hello says bye/)
      await cliIn(dir, ['plugin', 'disable', 'hello'])
      await bye
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('lists and describes a plugin dropped into the folder while the manager runs, loading nothing (issue 20)', async () => {
    const dir = tempDir()
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      writePlugins(dir, { 'late.ts': plugin('Late', "override onLoad() { this.logger.info('late is alive') }") })
      const list = JSON.parse((await cliIn(dir, ['plugin', 'list', '--json'])).stdout) as { name: string }[]
      expect(list.find((p) => p.name === 'late')).to.deep.include({ name: 'late', state: 'disabled', enabled: false })
      const info = await cliIn(dir, ['plugin', 'info', 'late', '--json'])
      expect(info.code, info.stderr).to.equal(0)
      expect(JSON.parse(info.stdout)).to.deep.include({ name: 'late', version: '1.0.0', state: 'disabled' })
      const facts = JSON.parse((await cliIn(dir, ['events', '--type', 'plugins:discovered', '--json'])).stdout)
      expect(facts.map((f: { payload: { name: string } }) => f.payload.name)).to.include('late')
      const alive = waitForLine(manager, /\[plugin:late\] late is alive/, { stream: 'stderr' })
      await cliIn(dir, ['plugin', 'enable', 'late'])
      await alive
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('triggers a custom event that reaches an enabled listener with the payload and sender, and prints the report', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'listener.ts': plugin(
        'Listener',
        "override async onLoad() { await this.api.listenForEvent('ns:evt', (payload, meta) => this.api.setCustomGlobalSetting('got', { payload, meta })) }",
      ),
    })
    await cliIn(dir, ['plugin', 'enable', 'listener'])
    const trigger = await cliIn(dir, ['event', 'trigger', 'ns:evt', '--payload', '{"a":1}'])
    expect(trigger.code, trigger.stderr).to.equal(0)
    // Where what the listener logged went: no manager runs, so this command ran it (issue 34 item 7).
    expect(trigger.stdout).to.equal(
      "Event 'ns:evt' triggered: delivered to 1 of 1 listeners.\n" +
        `The listeners ran in this command; what they logged is in ${join(dir, 'logs', 'server-manager.log')}.\n`,
    )
    const got = JSON.parse((await cliIn(dir, ['setting', 'get', 'custom.got', '--json'])).stdout)
    expect(got).to.deep.equal({ payload: { a: 1 }, meta: { event: 'ns:evt', sender: 'external_api_trigger' } })
    const json = JSON.parse((await cliIn(dir, ['event', 'trigger', 'ns:evt', '--json'])).stdout)
    expect(json).to.deep.equal({ event: 'ns:evt', listeners: 1, delivered: 1, skipped: false, failed: [] })
  })

  it('refuses bad triggers, unknown plugins and broken ones with coded errors', async () => {
    const dir = tempDir()
    writePlugins(dir, { 'broken.ts': 'export default class { nope' })
    const cases: [string[], string, number][] = [
      [['event', 'trigger', 'noname'], 'SM_ERR_PLUGIN_INVALID_EVENT_NAME', 64],
      [['event', 'trigger', 'a:b', '--payload', '{not json'], 'SM_ERR_CLI_INVALID_ARGUMENT', 64],
      [['event', 'trigger', 'a:b', '--payload', '[1,2]'], 'SM_ERR_PLUGIN_INVALID_PAYLOAD', 64],
      [['plugin', 'enable', 'ghost'], 'SM_ERR_PLUGIN_NOT_FOUND', 66],
      [['plugin', 'info', 'ghost'], 'SM_ERR_PLUGIN_NOT_FOUND', 66],
      [['plugin', 'enable', 'broken'], 'SM_ERR_PLUGIN_IMPORT_FAILED', 65],
      [['plugin', 'new', 'bad name'], 'SM_ERR_PLUGIN_INVALID_NAME', 65],
    ]
    for (const [args, code, exit] of cases) {
      // One of them as a cold process, the others in this process.
      const result = await (args[1] === 'enable' && args[2] === 'broken' ? cli : cliIn)(dir, args)
      expect(result.stderr, args.join(' ')).to.match(new RegExp(`Error \\[${code}\\]: `))
      expect(result.code, args.join(' ')).to.equal(exit)
    }
    const list = await cliIn(dir, ['plugin', 'list'])
    expect(list.stdout).to.match(/broken +invalid +yes .*SM_ERR_PLUGIN_IMPORT_FAILED/)
  })

  it('scaffolds a working plugin that loads once enabled, and never overwrites one', async () => {
    const dir = tempDir()
    const created = await cliIn(dir, ['plugin', 'new', 'motd'])
    expect(created.stdout).to.contain(join(dir, 'plugins', 'motd.ts'))
    const enable = await cliIn(dir, ['plugin', 'enable', 'motd'])
    expect(enable.stdout).to.contain('State: loaded.')
    const veto = await cliIn(dir, ['setting', 'set', 'custom.motd_locked', '1'])
    expect(veto.stderr).to.contain('SM_ERR_SETTINGS_UPDATE_CANCELLED')
    const again = await cliIn(dir, ['plugin', 'new', 'motd'])
    expect(again.stderr).to.contain('SM_ERR_PLUGIN_SCAFFOLD_EXISTS')
    const info = JSON.parse((await cliIn(dir, ['plugin', 'info', 'motd', '--json'])).stdout)
    expect(info).to.deep.include({ name: 'motd', state: 'loaded', enabled: true, version: '0.1.0' })
    expect(info.description).to.match(/^Motd: describe what your plugin does/)
  })
})
