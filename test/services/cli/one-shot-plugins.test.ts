import { expect } from 'chai'
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
})
