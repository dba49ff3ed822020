import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { createManager } from '../../../manager'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { plugin, trace, traced, useTrace, writePlugins } from '../../helpers/plugins'
import { tempDir } from '../../helpers/temp-dir'

/** A plugin that traces its load, and each of `hooks` (method names) with its event's key or name. */
const tracing = (className: string, hooks: readonly string[] = [], extra = '') =>
  plugin(
    className,
    `override onLoad() { ${trace(`'load ${className}'`)} }
  ${hooks.map((hook) => `${hook}(p: { key?: string }) { ${trace(`'${className} ${hook} ' + (p.key ?? '')`)} }`).join('\n  ')}
  ${extra}`,
  )

/**
 * Issue 36 item 2: a command run with no manager loads the plugins only when its action needs
 * them, which discovery knows from the methods each plugin's class defines. Each command here is
 * a one-shot command's own in-process manager, as a cold process has (cli-in-process.ts).
 */
describe('services/cli: a command with no manager loads plugins only when its action needs them', () => {
  let dataDir: string

  beforeEach(async () => {
    dataDir = tempDir()
    useTrace(dataDir)
  })

  const enable = async (...names: string[]) => {
    for (const name of names) await cliInOk(dataDir, ['plugin', 'enable', name], { SM_DEFAULT_PLUGINS: 'off' })
    useTrace(dataDir)
  }
  const run = (args: string[]) => cliInOk(dataDir, args, { SM_DEFAULT_PLUGINS: 'off' })

  it('runs no plugin for an action none of them hooks, and all of them, in order, before one that one hooks', async () => {
    writePlugins(dataDir, {
      'starter.ts': tracing('Starter', ['beforeServerStart']),
      'watcher.ts': tracing('Watcher', ['afterSettingUpdate'], "static requires = ['starter']"),
    })
    await enable('starter')
    await run(['setting', 'set', 'custom.a', '1'])
    await run(['setting', 'get', 'custom.a'])
    expect(traced()).to.deep.equal([])

    await enable('watcher')
    await run(['setting', 'set', 'custom.b', '2'])
    // Both load (a hook may act, and another plugin hook what it does), in their order, before the action.
    expect(traced()).to.deep.equal(['load Starter', 'load Watcher', 'Watcher afterSettingUpdate custom.b'])
  })

  it("loads them for onAnyEvent, for a custom event, and for a plugin recorded before its methods were; a plugin's action reaches the others", async () => {
    writePlugins(dataDir, {
      'any.ts': tracing('Any', [], `onAnyEvent(event: string) { ${trace("'Any ' + event")} }`),
    })
    await enable('any')
    await run(['setting', 'set', 'custom.c', '3'])
    expect(traced()).to.deep.equal(['load Any', 'Any before_setting_update', 'Any after_setting_update'])

    writePlugins(dataDir, {
      'any.ts': plugin('Any'),
      'pong.ts': plugin(
        'Pong',
        `override async onLoad() {
    await this.api.listenForEvent('pinger:ping', (p) => { ${trace("'Pong heard ' + String(p.n)")} })
  }`,
      ),
      'pinger.ts': plugin('Pinger', "async afterSettingUpdate() { await this.api.sendEvent('pinger:ping', { n: 7 }) }"),
    })
    await enable('pong', 'pinger')
    await run(['event', 'trigger', 'pinger:ping', '--payload', '{"n":1}'])
    expect(traced()).to.include('Pong heard 1')
    useTrace(dataDir)
    // Pinger hooks settings; what its hook sends reaches Pong, loaded with it.
    await run(['setting', 'set', 'custom.d', '4'])
    expect(traced()).to.include('Pong heard 7')
  })

  it('warns at load of a hook made an instance field, which a command with no manager cannot know of', async () => {
    writePlugins(dataDir, {
      'field.ts': plugin('Field', `afterSettingUpdate = () => { ${trace("'Field hook'")} }`),
    })
    await enable('field')
    const set = await cliIn(dataDir, ['setting', 'set', 'custom.e', '5'], { SM_DEFAULT_PLUGINS: 'off' })
    expect(set.code).to.equal(0)
    expect(traced()).to.deep.equal([])
    const reload = await cliIn(dataDir, ['plugin', 'reload'], { SM_DEFAULT_PLUGINS: 'off', SM_LOG_LEVEL: 'warn' })
    expect(reload.stdout + reload.stderr).to.match(/'afterSettingUpdate' is an instance field.*declare it as a method/)
  })

  const veto = (key: string, reason: string) =>
    `(p: { key: string }) => (p.key === '${key}' ? { cancel: true as const, reason: '${reason}' } : undefined)`

  it('holds back an action that comes while the plugins load, so that a veto hook still sees it', async () => {
    writePlugins(dataDir, {
      'guard.ts': plugin(
        'Guard',
        `beforeSettingUpdate(p: { key: string }) { return (${veto('custom.locked', 'guarded')})(p) }`,
      ),
    })
    await enable('guard')
    // Two actions at once, as a plugin command's Promise.all makes them: the second comes while
    // the first one's need is loading the plugins.
    const kernel = createManager({
      dataDir,
      consoleLevel: 'silent',
      loadPlugins: 'on-demand',
      oneShot: true,
      defaultPlugins: false,
    })
    await kernel.start()
    try {
      const [other, locked] = await Promise.allSettled([
        kernel.bus.request('settings:set', { key: 'custom.other', value: 1 }, { actor: 'cli:test' }),
        kernel.bus.request('settings:set', { key: 'custom.locked', value: 1 }, { actor: 'cli:test' }),
      ])
      expect(other.status).to.equal('fulfilled')
      expect(locked.status).to.equal('rejected')
      expect((locked as PromiseRejectedResult).reason.code).to.equal('SM_ERR_SETTINGS_UPDATE_CANCELLED')
    } finally {
      await kernel.stop()
    }
  })

  it('sees hooks a plugin inherits or defines as getters, and a reload records what its base class gained since', async () => {
    writePlugins(dataDir, {
      '_shared/base.ts':
        "import { PluginBase } from 'server-manager'\nexport class Base extends PluginBase { helper() { return 1 } }\n",
      'heir.ts':
        "import { Base } from './_shared/base'\nexport default class Heir extends Base { static version = '1.0.0' }\n",
      'getter.ts': plugin('Getter', `get beforeSettingUpdate() { return ${veto('custom.by_getter', 'getter')} }`),
    })
    await enable('heir', 'getter')
    const byGetter = await cliIn(dataDir, ['setting', 'set', 'custom.by_getter', '1'], { SM_DEFAULT_PLUGINS: 'off' })
    expect(byGetter.code, byGetter.stderr).to.equal(1)
    expect(byGetter.stderr).to.include('getter')
    // The base class is outside the plugin's files: its new hook is known once the plugins are reloaded.
    writePlugins(dataDir, {
      '_shared/base.ts': `import { PluginBase } from 'server-manager'\nexport class Base extends PluginBase { beforeSettingUpdate(p: { key: string }) { return (${veto('custom.by_base', 'base')})(p) } }\n`,
    })
    await run(['plugin', 'reload'])
    const byBase = await cliIn(dataDir, ['setting', 'set', 'custom.by_base', '1'], { SM_DEFAULT_PLUGINS: 'off' })
    expect(byBase.code, byBase.stderr).to.equal(1)
    expect(byBase.stderr).to.include('base')
  })

  it("writes the CLI's cache of plugin commands again when it is gone, as the command that loads them", async () => {
    writePlugins(dataDir, { 'quiet.ts': tracing('Quiet', ['beforeServerStart']) })
    await enable('quiet')
    const cache = join(dataDir, 'cache', 'cli.json')
    expect(existsSync(cache)).to.equal(true)
    rmSync(cache)
    await run(['setting', 'set', 'custom.f', '6'])
    expect(existsSync(cache)).to.equal(true)
    useTrace(dataDir)
    await run(['setting', 'set', 'custom.f', '7'])
    expect(traced()).to.deep.equal([])
  })
})
