import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import type { PluginApi } from '../../../index'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { plugin, pluginRecord, withPlugins, writePlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'
import { cli, cliStart, spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/** Resolves once the event log holds an after_setting_update for `key` (re-reading on each new event). */
async function waitForFact(dir: string, key: string): Promise<void> {
  const follow = spawnCli(dir, ['events', '--follow', '--json', '--type', 'after_setting_update'])
  try {
    await waitForLine(follow, new RegExp(`"key":"${key.replace('.', '\\.')}"`))
  } finally {
    await stop(follow)
  }
}

const logText = (dir: string) => readFileSync(join(dir, 'logs', 'server-manager.log'), 'utf8')

/**
 * A data directory with a short hook timeout, a free web port (other test runs may hold the
 * default one) and the given plugins enabled (each enable may fail).
 */
async function setUp(files: Record<string, string>, options: { inProcess?: boolean } = {}): Promise<string> {
  const dir = tempDir()
  // Set before any plugin is there (in this process: no plugin code runs yet).
  await cliInOk(dir, ['setting', 'set', 'plugins.hook_timeout_ms', '2000'])
  await cliInOk(dir, ['setting', 'set', 'web.port', '0'])
  // The manager's own thread (plugins.isolation none): the loop watchdog, process.exit refused,
  // stray errors attributed, a revoked this.api. threads.test.ts holds plugins in threads of their
  // own. (A manager booted in this process has no watchdog: the process is mocha's, not its own.)
  if (options.inProcess) await cliInOk(dir, ['setting', 'set', 'plugins.isolation', 'none'])
  writePlugins(dir, files)
  // Enabled in this process where plugin code runs in threads (its own, not this process's: an
  // onLoad that hangs, loops or exits costs only its thread, as in any CLI process); in a CLI
  // process where it would run in the manager's own thread (plugins.isolation none).
  const enable = options.inProcess ? cli : cliIn
  for (const name of Object.keys(files)) await enable(dir, ['plugin', 'enable', name.replace(/\.(ts|js)$/, '')])
  return dir
}

describe('services/plugins: plugin code cannot make a command lie, hang or crash (real CLI processes)', function () {
  this.timeout(120_000)

  it('cuts off an onLoad that never settles once, with a timeout code, and every command still does its work', async () => {
    const dir = await setUp({
      'hang.ts': plugin(
        'Hang',
        `override async onLoad() {
    require('node:fs').appendFileSync(require('node:path').join(process.env.SM_DATA_DIR, 'hang-loads.txt'), 'load\\n')
    await new Promise(() => {})
  }`,
      ),
      'slowveto.ts': plugin('SlowVeto', 'async beforeSettingUpdate() { await new Promise(() => {}) }'),
      'ticker.ts': plugin('Ticker', 'override onLoad() { setInterval(() => {}, 1000) }'),
    })
    const hang = await pluginRecord(dir, 'hang')
    expect(hang.state).to.equal('failed')
    expect(hang.error?.code).to.equal('SM_ERR_PLUGIN_LOAD_TIMEOUT')
    expect(readFileSync(join(dir, 'hang-loads.txt'), 'utf8')).to.equal('load\n')
    const set = await cli(dir, ['setting', 'set', 'custom.x', '1'])
    expect(set.code).to.equal(0)
    expect(set.stdout).to.equal('custom.x = 1\n')
    expect((await cli(dir, ['setting', 'get', 'custom.x'])).stdout).to.equal('1\n')
    expect((await pluginRecord(dir, 'ticker')).state).to.equal('loaded')
    expect((await pluginRecord(dir, 'slowveto')).hookFailures).to.equal(1)
    // A failed plugin is not run again by every command: only enable, reload or a new start retries it.
    expect(readFileSync(join(dir, 'hang-loads.txt'), 'utf8')).to.equal('load\n')
    const enable = await cli(dir, ['plugin', 'enable', 'hang'])
    expect(enable.code).to.equal(75)
    expect(enable.stderr).to.contain('Error [SM_ERR_PLUGIN_LOAD_TIMEOUT]')
    expect(readFileSync(join(dir, 'hang-loads.txt'), 'utf8')).to.equal('load\nload\n')
  })

  it('keeps a running manager alive and answering while an onLoad hangs', async () => {
    const dir = await setUp({})
    writePlugins(dir, { 'hang.ts': plugin('Hang', 'override async onLoad() { await new Promise(() => {}) }') })
    expect((await cli(dir, ['plugin', 'enable', 'hang'])).code).to.equal(75)
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      expect((await pluginRecord(dir, 'hang')).error?.code).to.equal('SM_ERR_PLUGIN_LOAD_TIMEOUT')
      expect((await cli(dir, ['setting', 'set', 'custom.y', '2'])).code).to.equal(0)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('does not take a pause of the whole manager (Ctrl-Z, a suspended machine) for a plugin that holds its loop', async () => {
    const dir = await setUp({ 'quiet.ts': plugin('Quiet', 'beforeSettingUpdate() {}') }, { inProcess: true })
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      // Stopped for longer than the watchdog's limit (twice the 2 s hook timeout), every
      // thread of it: the watcher sees its own tick come late, and counts none of that time.
      process.kill(manager.pid as number, 'SIGSTOP')
      try {
        await sleep(5_000)
      } finally {
        process.kill(manager.pid as number, 'SIGCONT')
      }
      expect((await cli(dir, ['setting', 'set', 'custom.after', '1'])).code).to.equal(0)
      // Still the same process, not killed as blocked (a CLI command would run without it too).
      expect({ code: manager.exitCode, signal: manager.signalCode }).to.deep.equal({ code: null, signal: null })
      expect((await pluginRecord(dir, 'quiet')).state).to.equal('loaded')
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('ends a command whose plugin hook loops forever, naming the plugin, and keeps that plugin out afterwards', async () => {
    const dir = await setUp({ 'spin.ts': plugin('Spin', 'beforeSettingUpdate() { for (;;) {} }') }, { inProcess: true })
    const blocked = await cli(dir, ['setting', 'set', 'custom.x', '1'])
    expect(blocked.signal).to.equal('SIGKILL')
    expect(blocked.stderr).to.contain(
      "Error [SM_ERR_PLUGIN_BLOCKED_LOOP]: The plugin 'spin' blocked the manager's event loop",
    )
    expect(blocked.stderr).to.contain('it last entered before_setting_update')
    expect(blocked.stderr).to.contain("until 'server-manager plugin enable spin'")
    expect(blocked.stderr).not.to.contain('{plugin}')
    expect(logText(dir)).to.contain('"code":"SM_ERR_PLUGIN_BLOCKED_LOOP"')
    const spin = await pluginRecord(dir, 'spin')
    expect(spin).to.include({ state: 'failed', enabled: true })
    expect(spin.error?.code).to.equal('SM_ERR_PLUGIN_BLOCKED_LOOP')
    expect((await cli(dir, ['setting', 'set', 'custom.x', '2'])).code).to.equal(0)
    expect((await cli(dir, ['setting', 'get', 'custom.x'])).stdout).to.equal('2\n')
  })

  it('keeps a plugin the watchdog stopped out of every later process until an admin enables it, whatever command comes first', async () => {
    const dir = await setUp(
      {
        'spin.ts': plugin(
          'Spin',
          "beforeSettingUpdate(p: { key: string }) { if (p.key === 'custom.spin') for (;;) {} }",
        ),
      },
      { inProcess: true },
    )
    expect((await cli(dir, ['setting', 'set', 'custom.spin', '1'])).signal).to.equal('SIGKILL')
    // The first reader of the watchdog's record (here a listing) records the block for all later ones.
    const listed = await pluginRecord(dir, 'spin')
    expect(listed).to.include({ state: 'failed', enabled: true })
    expect(listed.blocked?.hook).to.equal('before_setting_update')
    expect(existsSync(join(dir, 'plugins.blocked.json'))).to.equal(false)
    expect((await cli(dir, ['plugin', 'info', 'spin'])).stdout).to.match(
      /^blocked +since \S+ \(it blocked the event loop in before_setting_update\); kept out until 'plugin enable spin'/m,
    )
    const facts = await cli(dir, ['events', '--json', '--type', 'plugins:blocked'])
    const blockedFacts = JSON.parse(facts.stdout) as { payload: { name: string; hook: string } }[]
    expect(blockedFacts.map((fact) => fact.payload.name)).to.deep.equal(['spin'])
    for (let round = 0; round < 2; round++) {
      // A background manager, started and stopped twice: spin stays out, and custom.spin no longer kills it.
      expect((await cliStart(dir, ['--detached'])).code).to.equal(0)
      try {
        expect((await pluginRecord(dir, 'spin')).state).to.equal('failed')
        const set = await cli(dir, ['setting', 'set', 'custom.spin', String(round + 2)])
        expect(set.code, set.stderr).to.equal(0)
        expect((await cli(dir, ['status'])).code).to.equal(0)
      } finally {
        expect((await cli(dir, ['web', 'stop'])).code).to.equal(0)
      }
    }
    // One-shot commands neither load it nor clear the block.
    expect((await cli(dir, ['setting', 'set', 'custom.spin', '9'])).code).to.equal(0)
    // Only an explicit enable lets it run again.
    const enable = await cli(dir, ['plugin', 'enable', 'spin'])
    expect(enable.code, enable.stderr).to.equal(0)
    const enabled = await pluginRecord(dir, 'spin')
    expect(enabled.state).to.equal('loaded')
    expect(enabled.blocked).to.equal(undefined)
  })

  it('lets a plugin reload bring back a plugin the watchdog stopped', async () => {
    const dir = await setUp(
      {
        'spin.ts': plugin(
          'Spin',
          "beforeSettingUpdate(p: { key: string }) { if (p.key === 'custom.spin') for (;;) {} }",
        ),
      },
      { inProcess: true },
    )
    expect((await cli(dir, ['setting', 'set', 'custom.spin', '1'])).signal).to.equal('SIGKILL')
    expect((await cli(dir, ['setting', 'set', 'custom.other', '1'])).code).to.equal(0)
    expect((await pluginRecord(dir, 'spin')).blocked?.hook).to.equal('before_setting_update')
    expect((await cli(dir, ['plugin', 'reload'])).code).to.equal(0)
    const reloaded = await pluginRecord(dir, 'spin')
    expect(reloaded.blocked).to.equal(undefined)
    expect(reloaded.state).to.equal('loaded')
  })

  it('cuts off an onManagerStartup that loops forever, so the manager still starts and stops on SIGTERM', async () => {
    const dir = await setUp({ 'boot.ts': plugin('Boot', 'override onManagerStartup() { for (;;) {} }') })
    const manager = await spawnManager(dir)
    const cutOff = waitForLine(manager, /SM_ERR_PLUGIN_LOAD_TIMEOUT/, { stream: 'stderr' })
    await waitForLine(manager, /^ready in/)
    expect(await cutOff).to.contain("The plugin 'boot' did not finish onManagerStartup within 2000 ms")
    expect(await stop(manager)).to.equal(0)
  })

  it('refuses process.exit from a plugin, naming it, and the command carries on', async () => {
    const dir = await setUp(
      { 'quitter.ts': plugin('Quitter', 'override onLoad() { process.exit(0) }') },
      { inProcess: true },
    )
    const quitter = await pluginRecord(dir, 'quitter')
    expect(quitter.state).to.equal('failed')
    expect(quitter.error?.message).to.contain("The plugin 'quitter' may not end the process (process.exit)")
    const set = await cli(dir, ['setting', 'set', 'custom.z', '3'])
    expect(set.code).to.equal(0)
    expect((await cli(dir, ['setting', 'get', 'custom.z'])).stdout).to.equal('3\n')
  })

  it('attributes a stray rejection to its plugin instead of dying, and the plugin can still be disabled', async () => {
    const dir = await setUp(
      { 'stray.ts': plugin('Stray', "override onLoad() { Promise.reject(new Error('forgotten promise')) }") },
      { inProcess: true },
    )
    const set = await cli(dir, ['setting', 'set', 'custom.w', '4'])
    expect(set.code).to.equal(0)
    expect(set.stderr).to.not.contain('    at ')
    expect(logText(dir)).to.contain('SM_ERR_PLUGIN_STRAY_ERROR')
    expect(logText(dir)).to.contain("The plugin 'stray' raised an unhandled promise rejection: forgotten promise")
    const disable = await cli(dir, ['plugin', 'disable', 'stray'])
    expect(disable.code).to.equal(0)
    expect(disable.stdout).to.equal("Plugin 'stray' disabled. State: disabled.\n")
  })

  it('goes on past a before_set_plugin_status hook and a custom-event listener that never settle', async () => {
    const dir = await setUp({
      'stuck.ts': plugin('Stuck', 'async beforeSetPluginStatus() { await new Promise(() => {}) }'),
      'deaf.ts': plugin(
        'Deaf',
        "override async onLoad() { await this.api.listenForEvent('stuck:ping', () => new Promise(() => {})) }",
      ),
    })
    writePlugins(dir, { 'other.ts': plugin('Other') })
    const enable = await cli(dir, ['plugin', 'enable', 'other'])
    expect(enable.code).to.equal(0)
    expect(enable.stdout).to.equal("Plugin 'other' enabled. State: loaded.\n")
    const trigger = await cli(dir, ['event', 'trigger', 'stuck:ping', '--json'])
    expect(trigger.code).to.equal(0)
    expect(JSON.parse(trigger.stdout)).to.include({ listeners: 1, delivered: 0 })
    const facts = JSON.parse((await cli(dir, ['events', '--type', 'plugins:event_triggered', '--json'])).stdout)
    expect(facts).to.have.length(1)
  })

  it('refuses the manager internals to a plugin: it can only reach the manager through this.api', async () => {
    const sneaky = `import { createKernel } from 'server-manager/manager'
import { PluginBase } from 'server-manager'

export default class Sneaky extends PluginBase {
  static version = '1.0.0'
  override onLoad() { createKernel() }
}
`
    const dir = await setUp({ 'sneaky.ts': sneaky })
    const sneakyRecord = await pluginRecord(dir, 'sneaky')
    expect(sneakyRecord.state).to.equal('failed')
    expect(sneakyRecord.error?.message).to.contain(
      "The plugin 'sneaky' may not use 'createKernel' from 'server-manager/manager'",
    )
  })

  it("stops a disabled plugin's forgotten timer from acting through this.api in a running manager", async () => {
    const ticker = `override onLoad() {
    let n = 0
    setInterval(() => { this.api.setCustomGlobalSetting('tick', ++n) }, 50)
  }`
    const dir = await setUp({}, { inProcess: true })
    writePlugins(dir, { 'ticker.ts': plugin('Ticker', ticker) })
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      expect((await cli(dir, ['plugin', 'enable', 'ticker'])).code).to.equal(0)
      const writes = async () =>
        JSON.parse((await cli(dir, ['events', '--type', 'after_setting_update', '--json', '--limit', '10000'])).stdout)
          .length as number
      await waitForFact(dir, 'custom.tick')
      expect((await cli(dir, ['plugin', 'disable', 'ticker'])).code).to.equal(0)
      const revoked = () =>
        waitForLine(manager, /SM_ERR_PLUGIN_REVOKED|called this\.api\.setCustomGlobalSetting after/, {
          stream: 'stderr',
        })
      await revoked()
      const after = await writes()
      await revoked()
      expect(await writes()).to.equal(after)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })

  it('revokes this.api of an unloaded plugin: later calls fail with a code and register nothing', async () => {
    const keep = `override async onLoad() { (globalThis as Record<string, unknown>).keptApi = this.api }`
    // Only a plugin in the manager's own thread can hand the test its this.api; one in a thread of
    // its own is gone with its thread.
    const settings = { 'plugins.isolation': 'none' }
    await withPlugins(
      { 'keeper.ts': plugin('Keeper', keep) },
      { settings, enable: ['keeper'] },
      async ({ manager }) => {
        const api = (globalThis as Record<string, unknown>).keptApi as PluginApi
        expect((await api.setCustomGlobalSetting('alive', 1)).status).to.equal('success')
        await manager.bus.request('plugins:set_enabled', { name: 'keeper', enabled: false })
        for (const call of [
          api.setCustomGlobalSetting('late', 1),
          api.listenForEvent('keeper:late', () => {}),
          api.sendEvent('keeper:late'),
          api.getGlobalSetting('custom.alive'),
        ]) {
          const error = await rejection(call)
          expect(error.code).to.equal('SM_ERR_PLUGIN_REVOKED')
        }
        const report = await manager.bus.request('plugins:trigger_event', { event: 'keeper:late' })
        expect(report.listeners).to.equal(0)
        expect((await manager.bus.request('settings:get', { key: 'custom.late' })).found).to.equal(false)
      },
    )
  })

  it('leaves nothing of a plugin whose onLoad failed: its listener receives no event', async () => {
    const failing = `override async onLoad() {
    await this.api.listenForEvent('failing:ping', () => 'got it')
    throw new Error('broken after listening')
  }`
    await withPlugins({ 'failing.ts': plugin('Failing', failing) }, { enable: ['failing'] }, async ({ manager }) => {
      const report = await manager.bus.request('plugins:trigger_event', { event: 'failing:ping' })
      expect(report).to.include({ listeners: 0, delivered: 0 })
    })
  })

  it('warns about a method named like a hook that is not one, naming the nearest hook', async () => {
    const dir = await setUp({ 'typo.ts': plugin('Typo', 'afterSettingUpdat() { return 1 }') })
    expect((await pluginRecord(dir, 'typo')).state).to.equal('loaded')
    expect(logText(dir)).to.contain(
      "'afterSettingUpdat' looks like a hook but is not one, so it is never called; did you mean 'afterSettingUpdate'?",
    )
  })

  it('loads module.exports = class from a JavaScript plugin, and locates a syntax error by file:line:column', async () => {
    const js = `const { PluginBase } = require('server-manager')\nmodule.exports = class Plain extends PluginBase {\n  static version = '1.0.0'\n}\n`
    const broken =
      "import { PluginBase } from 'server-manager'\n\nexport default class Broken extends PluginBase {\n  static version = '1.0.0'\n  oops( {\n}\n"
    const dir = await setUp({ 'plain.js': js, 'broken.ts': broken })
    expect((await pluginRecord(dir, 'plain')).state).to.equal('loaded')
    const error = (await pluginRecord(dir, 'broken')).error
    expect(error?.code).to.equal('SM_ERR_PLUGIN_IMPORT_FAILED')
    expect(error?.message).to.match(new RegExp(`\\(at ${join(dir, 'plugins', 'broken.ts')}:\\d+:\\d+\\)`))
  })
})
