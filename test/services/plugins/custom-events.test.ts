import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { plugin, trace, traced, withPlugins, writePlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'
import { spawnManager, stop } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'
import { adminSession, webUrl } from '../../helpers/web-process'

const received = <T = unknown>() => traced<T>()
const listener = (className: string, event: string, body = '') =>
  plugin(
    className,
    `override async onLoad() {
    await this.api.listenForEvent('${event}', (payload: any, meta: any) => {
      ${trace('{ plugin: this.name, payload, meta }')}
      ${body}
    })
  }`,
  )

describe('services/plugins: custom events', () => {
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
        // Listeners hear it side by side: in no set order.
        const byPlugin = received<{ plugin: string }>().sort((a, b) => a.plugin.localeCompare(b.plugin))
        expect(byPlugin).to.deep.equal([
          { plugin: 'one', payload: { a: 1 }, meta: { event: 'ns:evt', sender: 'external_api_trigger' } },
          { plugin: 'two', payload: { a: 1 }, meta: { event: 'ns:evt', sender: 'external_api_trigger' } },
        ])
        expect(report).to.deep.include({ event: 'ns:evt', listeners: 2, delivered: 1, skipped: false })
        expect(report.failed).to.have.length(1)
        expect(report.failed[0]).to.deep.include({ plugin: 'two' })
        expect(report.failed[0]?.error).to.contain('listener broke')
        const [fact] = await manager.bus.request('events:read', { types: ['plugins:event_triggered'] })
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
      expect(await manager.bus.request('events:read', { types: ['plugins:event_triggered'] })).to.deep.equal([])
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
        'mutator.ts': listener('Mutator', 'ns:shared', `try { payload.changed = true } catch { ${trace("'frozen'")} }`),
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

  it("keeps the core's namespaces to the core, derived from what registers on the bus", async () => {
    await withPlugins({}, async ({ manager }) => {
      // bridge and web do not run here: their namespaces are reserved by their declared errors.
      for (const event of [
        'events:database_lost',
        'events:appended',
        'settings:x',
        'plugins:reload',
        'tasks:y',
        'bridge:z',
        'web:w',
      ]) {
        const error = await rejection(manager.bus.request('plugins:trigger_event', { event }))
        expect(error.code, event).to.equal('SM_ERR_PLUGIN_RESERVED_EVENT')
      }
      // A service that starts later reserves its namespace by registering, and frees it when it goes.
      expect((await manager.bus.request('plugins:trigger_event', { event: 'newsvc:x' })).listeners).to.equal(0)
      const handler = manager.bus.handle('newsvc:do' as 'plugins:list', () => [], { owner: 'newsvc' })
      const error = await rejection(manager.bus.request('plugins:trigger_event', { event: 'newsvc:x' }))
      expect(error.code).to.equal('SM_ERR_PLUGIN_RESERVED_EVENT')
      expect(error.message).to.contain("the namespace 'newsvc'")
      handler.dispose()
      expect((await manager.bus.request('plugins:trigger_event', { event: 'newsvc:x' })).listeners).to.equal(0)
    })
  })

  it('sends custom events on a channel of their own: a core listener never hears one, whatever its name', async () => {
    await withPlugins({ 'one.ts': listener('One', 'zed:ping') }, { enable: ['one'] }, async ({ manager }) => {
      const core: string[] = []
      // A core listener that would match any '<namespace>:ping' on the bus.
      const spy = manager.bus.on('*:ping' as 'zed:ping', (_payload, meta) => void core.push(meta.event), {
        owner: 'web',
      })
      try {
        const report = await manager.bus.request('plugins:trigger_event', { event: 'zed:ping', payload: { n: 1 } })
        expect(report).to.deep.include({ event: 'zed:ping', listeners: 1, delivered: 1 })
        expect(received()).to.deep.equal([
          { plugin: 'one', payload: { n: 1 }, meta: { event: 'zed:ping', sender: 'external_api_trigger' } },
        ])
        expect(core).to.deep.equal([])
      } finally {
        spy.dispose()
      }
    })
  })
})

describe('services/plugins: this.api', () => {
  it('reads settings, stores custom values as results (a refused one rejects with its code), lists plugins and its own operations', async () => {
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
    out.invalid = await this.api.setCustomGlobalSetting('', 1).catch((e: any) => e.code)
    out.statuses = await this.api.getPluginStatuses()
    out.apis = (await this.api.listAvailableApis()).map((a) => a.name)
    out.secret = await this.api.getGlobalSetting('web.jwt_secret_key').catch((e: any) => e.code)
    out.badEvent = await this.api.sendEvent('nonamespace').catch((e: any) => e.code)
    ${trace('out')}
  }`,
        ),
      },
      { enable: ['apiuser'] },
      async () => {
        const [out = {}] = traced<Record<string, unknown>>()
        expect(out.port).to.equal(11325)
        expect(out.absent).to.equal(undefined)
        expect(out.stored).to.deep.include({
          status: 'success',
          message: "Global setting 'custom.answer' updated.",
          key: 'custom.answer',
          value: 42,
        })
        expect(out.answer).to.equal(42)
        expect(out.invalid).to.equal('SM_ERR_SETTINGS_INVALID_KEY')
        expect(out.statuses).to.have.property('apiuser')
        expect(out.apis).to.deep.equal([
          'backupAll',
          'backupWorld',
          'getGlobalSetting',
          'getPluginStatuses',
          'getServerProfile',
          'getServerRunningStatus',
          'getServerSetting',
          'getUserAccess',
          'listAvailableApis',
          'listBackups',
          'listenForEvent',
          'listPlayers',
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

const FORGER = plugin(
  'Forger',
  `override async onLoad() {
    const fs = require('node:fs')
    const out = (line: string) => fs.appendFileSync(require('node:path').join(process.env.SM_DATA_DIR, 'forger.txt'), line + '\\n')
    out('load')
    await this.api.listenForEvent('forger:go', async () => {
      // What a forged fact would make the plugins service do: reload every plugin.
      const events = [{ seq: 1, time: '', actor: 'core', type: 'plugins:reloaded', payload: { origin: 'forged', loaded: [], failed: [] } }]
      for (const name of ['events:appended', 'events:database_lost']) {
        try {
          await this.api.sendEvent(name, { events })
          out(name + ' sent')
        } catch (error) {
          out(name + ' ' + (error as { code?: string }).code)
        }
      }
      try {
        await this.api.listenForEvent('settings:anything', () => {})
        out('listen ok')
      } catch (error) {
        out('listen ' + (error as { code?: string }).code)
      }
    })
  }`,
)

describe('services/plugins: core events cannot be forged (a real manager)', function () {
  this.timeout(60_000)

  it('refuses trigger_event and sendEvent in core namespaces with a code, and the manager keeps running', async () => {
    const dir = tempDir()
    writePlugins(dir, { 'forger.ts': FORGER })
    expect((await cliIn(dir, ['setting', 'set', 'web.port', '0'])).code).to.equal(0)
    expect((await cliIn(dir, ['plugin', 'enable', 'forger'])).code).to.equal(0)
    rmSync(join(dir, 'forger.txt')) // from that one-shot command: only the manager's load counts below
    const manager = await spawnManager(dir)
    try {
      const url = await webUrl(manager)
      const session = await adminSession(dir, url)
      const refused = await http(`${url}/api/plugins/trigger_event`, {
        token: session,
        body: { event_name: 'events:database_lost', payload: {} },
      })
      expect(refused.status).to.equal(422)
      expect(refused.json).to.include({ status: 'error', code: 'SM_ERR_PLUGIN_RESERVED_EVENT' })
      const fromCli = await cliIn(dir, ['event', 'trigger', 'events:appended', '--payload', '{"events":[]}'])
      expect(fromCli.code).to.equal(64)
      expect(fromCli.stderr).to.contain('SM_ERR_PLUGIN_RESERVED_EVENT')

      // The plugin tries the same from inside: refused, nothing sent, nothing reloaded.
      const go = await cliIn(dir, ['event', 'trigger', 'forger:go'])
      expect(go.code, go.stderr).to.equal(0)
      expect(readFileSync(join(dir, 'forger.txt'), 'utf8').split('\n')).to.deep.equal([
        'load',
        'events:appended SM_ERR_PLUGIN_RESERVED_EVENT',
        'events:database_lost SM_ERR_PLUGIN_RESERVED_EVENT',
        'listen SM_ERR_PLUGIN_RESERVED_EVENT',
        '',
      ])
      const triggered = JSON.parse((await cliIn(dir, ['events', '--json', '--type', 'plugins:event_triggered'])).stdout)
      expect(triggered.map((e: { payload: { event: string } }) => e.payload.event)).to.deep.equal(['forger:go'])
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
      expect(manager.exitCode).to.equal(null)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })
})
