import { expect } from 'chai'
import { plugin, withPlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'

const received = () => ((globalThis as { received?: unknown[] }).received ??= [])
const listener = (className: string, event: string, body = '') =>
  plugin(
    className,
    `override async onLoad() {
    await this.api.listenForEvent('${event}', (payload: any, meta: any) => {
      ;((globalThis as any).received ??= []).push({ plugin: this.name, payload, meta })
      ${body}
    })
  }`,
  )

describe('services/plugins: custom events', () => {
  beforeEach(() => {
    received().length = 0
  })

  it('delivers an external trigger to every listener with the payload and sender metadata, and reports it', async () => {
    await withPlugins(
      { 'one.ts': listener('One', 'ns:evt'), 'two.ts': listener('Two', 'ns:evt', "throw new Error('listener broke')") },
      { enable: ['one', 'two'] },
      async ({ manager }) => {
        const report = await manager.bus.request(
          'plugins:trigger_event',
          { event: 'ns:evt', payload: { a: 1 } },
          { actor: 'cli:alice' },
        )
        expect(received()).to.deep.equal([
          { plugin: 'one', payload: { a: 1 }, meta: { event: 'ns:evt', sender: 'external_api_trigger' } },
          { plugin: 'two', payload: { a: 1 }, meta: { event: 'ns:evt', sender: 'external_api_trigger' } },
        ])
        expect(report).to.deep.include({ event: 'ns:evt', listeners: 2, delivered: 1, skipped: false })
        expect(report.failed).to.have.length(1)
        expect(report.failed[0]).to.deep.include({ plugin: 'two' })
        expect(report.failed[0]?.error).to.contain('listener broke')
        const [fact] = await manager.bus.request('events:read', { types: ['custom_event_triggered'] })
        expect(fact).to.deep.include({ actor: 'cli:alice' })
        expect(fact?.payload).to.deep.include({ event: 'ns:evt', payload: { a: 1 } })
      },
    )
  })

  it('refuses names that are not <namespace>:<event> and payloads that are not objects', async () => {
    await withPlugins({}, async ({ manager }) => {
      for (const event of ['plain', ':evt', 'ns:', 'a:b:c', 'has space:x', '']) {
        const error = await rejection(manager.bus.request('plugins:trigger_event', { event }))
        expect(error.code, event).to.equal('SM_ERR_PLUGIN_INVALID_EVENT_NAME')
      }
      const error = await rejection(
        manager.bus.request('plugins:trigger_event', { event: 'a:b', payload: [1] as never }),
      )
      expect(error.code).to.equal('SM_ERR_PLUGIN_INVALID_PAYLOAD')
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      const bad: [unknown, string][] = [
        [{ run: () => 1 }, 'run is a function'],
        [{ when: new Date(0) }, 'when is a Date, not a plain object'],
        [{ n: 10n }, 'n is a bigint'],
        [cyclic, 'self refers to itself'],
        [{ big: '€'.repeat(400_000) }, 'larger than 1 MiB'],
      ]
      for (const [payload, reason] of bad) {
        const refused = await rejection(
          manager.bus.request('plugins:trigger_event', { event: 'a:b', payload: payload as Record<string, unknown> }),
        )
        expect(refused.code).to.equal('SM_ERR_PLUGIN_INVALID_PAYLOAD')
        expect(refused.message).to.contain(reason)
      }
      expect(await manager.bus.request('events:read', { types: ['custom_event_triggered'] })).to.deep.equal([])
    })
  })

  it('carries ping to pong across plugins, with the sending plugin as sender', async () => {
    await withPlugins(
      {},
      { settings: { 'plugins.dev_examples': true }, enable: ['pingplugin', 'pongplugin'] },
      async ({ manager }) => {
        await manager.bus.request('settings:set', { key: 'custom.ping', value: 'survival' })
        const pong = (await manager.bus.request('settings:get', { key: 'custom.pong_last' })).value as Record<
          string,
          unknown
        >
        expect(pong).to.deep.include({ value: 'survival', message: 'ping "survival"', sender: 'pingplugin' })
        // A vetoed change is no success: no ping.
        manager.bus.on('before_setting_update', () => ({ cancel: true, reason: 'frozen' }) as const, { owner: 'test' })
        await manager.bus.request('settings:set', { key: 'custom.ping', value: 'other' }).catch(() => undefined)
        expect(
          ((await manager.bus.request('settings:get', { key: 'custom.pong_last' })).value as { value: string }).value,
        ).to.equal('survival')
      },
    )
  })

  it('ends an A → B → A loop: the second A is skipped by the guard', async () => {
    await withPlugins(
      {},
      { settings: { 'plugins.dev_examples': true }, enable: ['custom_loop'] },
      async ({ manager }) => {
        const report = await manager.bus.request('plugins:trigger_event', { event: 'custom_loop:event_x' })
        expect(report).to.deep.include({ delivered: 1, skipped: false })
        expect((await manager.bus.request('settings:get', { key: 'custom.custom_loop_rounds' })).value).to.equal(1)
        // A new trigger is a new chain: it is delivered again.
        await manager.bus.request('plugins:trigger_event', { event: 'custom_loop:event_x' })
        expect((await manager.bus.request('settings:get', { key: 'custom.custom_loop_rounds' })).value).to.equal(2)
      },
    )
  })

  it('runs a package plugin with relative imports (event_sender echoes)', async () => {
    await withPlugins(
      { 'catcher.ts': listener('Catcher', 'event_sender:echoed') },
      {
        settings: { 'plugins.dev_examples': true },
        enable: ['event_sender', 'catcher'],
      },
      async ({ manager }) => {
        await manager.bus.request('plugins:trigger_event', { event: 'event_sender:echo', payload: { hi: true } })
        const [echo] = received() as { payload: Record<string, unknown>; meta: { sender: string } }[]
        expect(echo?.payload).to.deep.include({ echoed: { hi: true }, from: 'external_api_trigger' })
        expect(echo?.meta.sender).to.equal('event_sender')
      },
    )
  })

  it('gives each listener a frozen copy, so one listener cannot change what the next one sees', async () => {
    await withPlugins(
      {
        'mutator.ts': listener(
          'Mutator',
          'ns:shared',
          "try { payload.changed = true } catch { ;((globalThis as any).received).push('frozen') }",
        ),
        'reader.ts': listener('Reader', 'ns:shared'),
      },
      { enable: ['mutator', 'reader'] },
      async ({ manager }) => {
        await manager.bus.request('plugins:trigger_event', { event: 'ns:shared', payload: { n: 1 } })
        expect(received()).to.deep.include('frozen')
        expect(
          received()
            .filter((r) => typeof r === 'object')
            .map((r) => (r as { payload: unknown }).payload),
        ).to.deep.equal([{ n: 1 }, { n: 1 }])
      },
    )
  })

  it("removes a plugin's listeners when it is disabled or reloaded", async () => {
    await withPlugins({ 'gone.ts': listener('Gone', 'ns:bye') }, { enable: ['gone'] }, async ({ manager }) => {
      await manager.bus.request('plugins:reload', {})
      expect((await manager.bus.request('plugins:trigger_event', { event: 'ns:bye' })).listeners).to.equal(1)
      await manager.bus.request('plugins:set_enabled', { name: 'gone', enabled: false })
      expect((await manager.bus.request('plugins:trigger_event', { event: 'ns:bye' })).listeners).to.equal(0)
    })
  })
  it('stops listening early with the function listenForEvent resolves to', async () => {
    await withPlugins(
      {
        'quitter.ts': plugin(
          'Quitter',
          `override async onLoad() {
    const stop = await this.api.listenForEvent('ns:once', () => stop())
  }`,
        ),
      },
      { enable: ['quitter'] },
      async ({ manager }) => {
        expect((await manager.bus.request('plugins:trigger_event', { event: 'ns:once' })).delivered).to.equal(1)
        expect((await manager.bus.request('plugins:trigger_event', { event: 'ns:once' })).listeners).to.equal(0)
      },
    )
  })
})

describe('services/plugins: this.api', () => {
  it('reads settings, stores custom values as results, lists plugins and its own operations', async () => {
    await withPlugins(
      {
        'apiuser.ts': plugin(
          'ApiUser',
          `override async onLoad() {
    const out: Record<string, unknown> = {}
    out.port = await this.api.getGlobalSetting('web.port')
    out.absent = await this.api.getGlobalSetting('custom.absent')
    out.stored = await this.api.setCustomGlobalSetting('answer', 42)
    out.answer = await this.api.getGlobalSetting('custom.answer')
    out.invalid = await this.api.setCustomGlobalSetting('', 1)
    out.statuses = await this.api.getPluginStatuses()
    out.apis = (await this.api.listAvailableApis()).map((a) => a.name)
    out.secret = await this.api.getGlobalSetting('web.jwt_secret_key').catch((e: any) => e.code)
    out.badEvent = await this.api.sendEvent('nonamespace').catch((e: any) => e.code)
    ;(globalThis as any).apiResults = out
  }`,
        ),
      },
      { enable: ['apiuser'] },
      async () => {
        const out = (globalThis as { apiResults?: Record<string, unknown> }).apiResults ?? {}
        expect(out.port).to.equal(11325)
        expect(out.absent).to.equal(undefined)
        expect(out.stored).to.deep.equal({ status: 'success', message: "Global setting 'custom.answer' updated." })
        expect(out.answer).to.equal(42)
        expect(out.invalid).to.deep.include({ status: 'error', code: 'SM_ERR_SETTINGS_INVALID_KEY' })
        expect(out.statuses).to.have.property('apiuser')
        expect(out.apis).to.deep.equal([
          'backupAll',
          'backupWorld',
          'getGlobalSetting',
          'getPluginStatuses',
          'getServerRunningStatus',
          'getServerSetting',
          'listAvailableApis',
          'listBackups',
          'listenForEvent',
          'listServers',
          'pruneBackups',
          'restartServer',
          'restoreWorld',
          'runTask',
          'sendCommand',
          'sendEvent',
          'setCustomGlobalSetting',
          'setServerCustomValue',
          'startServer',
          'stopServer',
        ])
        expect(out.secret).to.equal('SM_ERR_PLUGIN_FORBIDDEN')
        expect(out.badEvent).to.equal('SM_ERR_PLUGIN_INVALID_EVENT_NAME')
      },
    )
  })
})
