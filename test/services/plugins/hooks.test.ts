import { expect } from 'chai'
import type { PluginRecord } from '../../../manager'
import { withManager } from '../../helpers/manager'
import { plugin, startWithPlugins, trace, traced, withPlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'

const byName = (records: PluginRecord[]) => Object.fromEntries(records.map((r) => [r.name, r]))
const calls = () => traced<string>()
const record = trace

describe('services/plugins: hooks', () => {
  it('lets the example veto plugin stop an action, whose after_* reports cancelled', async () => {
    await withPlugins(
      {
        'observer.ts': plugin('Observer', `afterSettingUpdate(p: any) { ${record('`${p.key}:${p.result.status}`')} }`),
      },
      { settings: { 'plugins.dev_examples': true }, enable: ['veto', 'observer'] },
      async ({ manager }) => {
        const error = await rejection(manager.bus.request('settings:set', { key: 'custom.locked', value: 1 }))
        expect(error.code).to.equal('SM_ERR_SETTINGS_UPDATE_CANCELLED')
        expect(error.message).to.contain("cancelled by 'plugin:veto': custom.locked is read-only")
        await manager.bus.request('settings:set', { key: 'custom.free', value: 1 })
        expect(calls()).to.deep.equal(['custom.locked:cancelled', 'custom.free:success'])
        expect((await manager.bus.request('settings:get', { key: 'custom.locked' })).found).to.equal(false)
      },
    )
  })

  it('fails only the hook whose answer cannot leave its thread, said so, among others answering at once; the action goes on', async () => {
    const { manager } = await startWithPlugins(
      {
        'odd.ts': plugin(
          'Odd',
          "beforeSettingUpdate(p: any) { if (p.key === 'custom.odd') return { cancel: true, reason: 'no', fn: () => 1 } }",
        ),
      },
      { enable: ['odd'] },
    )
    try {
      // Side by side, so their hooks' answers may cross in one batch: whether they do or not, only the odd one fails.
      await Promise.all(
        ['custom.a', 'custom.odd', 'custom.b'].map((key) => manager.bus.request('settings:set', { key, value: key })),
      )
      for (const key of ['custom.a', 'custom.odd', 'custom.b'])
        expect((await manager.bus.request('settings:get', { key })).value).to.equal(key)
      const info = await manager.bus.request('plugins:info', { name: 'odd' })
      expect(info.state).to.equal('loaded')
      expect(info.lastHookError?.message).to.contain("it returned a value that cannot leave the plugin's thread")
    } finally {
      await manager.stop()
    }
  })

  it('completes the action when a hook throws, runs the other plugins, and counts the failure against the plugin', async () => {
    const { manager, dataDir } = await startWithPlugins(
      {
        'zz_after.ts': plugin('ZzAfter', `beforeSettingUpdate(p: any) { ${record('`still ran: ${p.key}`')} }`),
      },
      { settings: { 'plugins.dev_examples': true }, enable: ['throwing_hook', 'zz_after'] },
    )
    try {
      await manager.bus.request('settings:set', { key: 'custom.a', value: 1 })
      await manager.bus.request('settings:set', { key: 'custom.b', value: 2 })
      expect(calls()).to.deep.equal(['still ran: custom.a', 'still ran: custom.b'])
      expect((await manager.bus.request('settings:get', { key: 'custom.b' })).value).to.equal(2)
      const info = await manager.bus.request('plugins:info', { name: 'throwing_hook' })
      expect(info.state).to.equal('loaded')
      expect(info.hookFailures).to.be.at.least(1)
      expect(info.lastHookError).to.deep.include({
        code: 'SM_ERR_KERNEL_LISTENER_FAILED',
        event: 'before_setting_update',
      })
      expect(info.lastHookError?.message).to.contain(
        "'plugin:throwing_hook' failed while handling 'before_setting_update': this hook always fails",
      )
    } finally {
      await manager.stop()
    }
    // Counts still pending when the plugin unloaded were recorded then: the total is exact.
    await withManager(
      async ({ bus }) => {
        expect((await bus.request('plugins:info', { name: 'throwing_hook' })).hookFailures).to.equal(2)
      },
      { dataDir },
    )
  })

  it('cuts off a hook that never settles at the hook timeout, then completes the action', async () => {
    await withPlugins(
      {},
      { settings: { 'plugins.dev_examples': true, 'plugins.hook_timeout_ms': 2_000 }, enable: ['hanging_hook'] },
      async ({ manager }) => {
        const began = Date.now()
        // The hook never settles: the action completes because the timeout cut it off (not
        // because it returned), which its error says; not sooner than the timeout.
        await manager.bus.request('settings:set', { key: 'custom.after_hang', value: true })
        expect(Date.now() - began).to.be.at.least(1_990)
        expect((await manager.bus.request('settings:get', { key: 'custom.after_hang' })).value).to.equal(true)
        const info = await manager.bus.request('plugins:info', { name: 'hanging_hook' })
        expect(info.lastHookError).to.deep.include({
          code: 'SM_ERR_KERNEL_LISTENER_TIMEOUT',
          event: 'before_setting_update',
        })
      },
    )
  })

  it('ends a hook → action → same hook loop: the nested dispatch is skipped, the nested action still happens', async () => {
    await withPlugins(
      { 'watch.ts': plugin('Watch', `beforeSettingUpdate(p: any) { ${record('`${p.key}=${p.value}`')} }`) },
      { settings: { 'plugins.dev_examples': true }, enable: ['mirror_loop', 'watch'] },
      async ({ manager }) => {
        await manager.bus.request('settings:set', { key: 'custom.mirror', value: 'x' })
        // The outer change ran the hooks; the mirrored change nested in it did not re-run them.
        expect(calls()).to.deep.equal(['custom.mirror=x'])
        const facts = await manager.bus.request('events:read', { types: ['after_setting_update'] })
        const mirror = facts
          .filter((f) => (f.payload as { key: string }).key === 'custom.mirror')
          .map((f) => (f.payload as { value: string }).value)
        expect(mirror).to.deep.equal(['x (mirrored)', 'x'])
      },
    )
  })

  it('guards by event identity: the same event for another key is dispatched, the same key is not', async () => {
    await withPlugins(
      {
        'watcher.ts': plugin(
          'Watcher',
          `beforeSettingUpdate(p: any) { ${record('`before:${p.key}`')} }
  afterSettingUpdate(p: any) { ${record('`after:${p.key}`')} }`,
        ),
      },
      { enable: ['watcher'] },
      async ({ manager }) => {
        const { bus } = manager
        const change = (key: string) => ({ key, value: 1, mode: 'merge' as const })
        let nested = false
        bus.on(
          'before_setting_update',
          async ({ key }) => {
            // A service listener is not guarded: it must not nest forever itself.
            if (key !== 'custom.k1' || nested) return
            nested = true
            await bus.emit('before_setting_update', change('custom.k2'))
            await bus.emit('before_setting_update', change('custom.k1'))
            await bus.emit('after_setting_update', { ...change('custom.k1'), result: { status: 'cancelled' } })
          },
          { owner: 'test:nesting' },
        )
        await bus.emit('before_setting_update', change('custom.k1'))
        expect(calls()).to.deep.equal(['before:custom.k1', 'before:custom.k2', 'after:custom.k1'])
      },
    )
  })

  it('calls onAnyEvent after the specific hook for every standard event', async () => {
    await withPlugins(
      {
        'anything.ts': plugin(
          'Anything',
          `afterSettingUpdate(p: any) { ${record("'specific'")} }
  override onAnyEvent(name: string) { ${record('`any:${name}`')} }`,
        ),
      },
      { enable: ['anything'] },
      async ({ manager }) => {
        await manager.bus.request('settings:set', { key: 'custom.x', value: 1 })
        await manager.bus.emit('before_set_plugin_status', { pluginName: 'nobody', enabled: true })
        expect(calls()).to.deep.equal([
          'any:before_setting_update',
          'specific',
          'any:after_setting_update',
          'any:before_set_plugin_status',
        ])
        const info = await manager.bus.request('plugins:info', { name: 'anything' })
        expect(info.hooks).to.deep.equal(['after_setting_update'])
      },
    )
  })

  it("hands hooks and onAnyEvent a secret setting's value redacted, and stores the real one", async () => {
    await withPlugins(
      {
        'snoop.ts': plugin(
          'Snoop',
          `beforeSettingUpdate(p: any) { ${record('`before:${p.value}:${p.previous}`')} }
  override onAnyEvent(name: string, p: any) { ${record('`${name}:${p.value}`')} }`,
        ),
      },
      { enable: ['snoop'] },
      async ({ manager }) => {
        await manager.bus.request('settings:set', { key: 'custom.db_password', value: 'hunter2' })
        await manager.bus.request('settings:set', { key: 'custom.db_password', value: 'hunter3' })
        expect(calls().join(' ')).to.not.contain('hunter')
        expect(calls()).to.include('before:[redacted]:[redacted]')
        expect((await manager.bus.request('settings:get', { key: 'custom.db_password' })).value).to.equal('hunter3')
        const facts = await manager.bus.request('events:read', { types: ['after_setting_update'] })
        expect(JSON.stringify(facts)).to.not.contain('hunter')
      },
    )
  })

  it('fires onManagerStartup once the manager has started', async () => {
    await withPlugins(
      { 'boot.ts': plugin('Boot', `override onManagerStartup() { ${record("'startup'")} }`) },
      { enable: ['boot'] },
      async ({ manager }) => {
        expect(calls()).to.deep.equal([])
        await manager.bus.emit('manager:started', {})
        expect(calls()).to.deep.equal(['startup'])
      },
    )
  })

  it('records plugin actions with the plugin as actor', async () => {
    await withPlugins(
      {
        'writer.ts': plugin(
          'Writer',
          "override async onLoad() { await this.api.setCustomGlobalSetting('written', 1) }",
        ),
      },
      { enable: ['writer'] },
      async ({ manager }) => {
        const [fact] = await manager.bus.request('events:read', { types: ['after_setting_update'] })
        expect(fact).to.deep.include({ actor: 'plugin:writer' })
        expect(byName(await manager.bus.request('plugins:list', {})).writer?.state).to.equal('loaded')
      },
    )
  })
})
