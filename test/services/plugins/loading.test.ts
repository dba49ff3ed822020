import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import {
  createKernel,
  metricsService,
  type PluginRecord,
  pluginsService,
  serversService,
  silentLogger,
} from '../../../manager'
import { eventsService } from '../../../services/events'
import { channelOf } from '../../../services/plugins/event-names'
import { settingsService } from '../../../services/settings'
import { tasksService } from '../../../services/tasks'
import { startManager, withManager } from '../../helpers/manager'
import { plugin, startWithPlugins, trace, traced, useTrace, withPlugins, writePlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

const byName = (records: PluginRecord[]) => Object.fromEntries(records.map((r) => [r.name, r]))

/** Records each onLoad/onUnload in process-wide order, to check ordering across plugins. */
const tracing = (className: string, extra = "static version = '1.0.0'") =>
  plugin(
    className,
    `override onLoad() { ${trace(`'load ${className}'`)} }
  override onUnload() { ${trace(`'unload ${className}'`)} }`,
    extra,
  )

const loads = () => traced<string>()

describe('services/plugins: loading', () => {
  it('lists broken plugins with coded errors and loads the good ones regardless', async () => {
    await withPlugins(
      {
        'good.ts': plugin('Good'),
        'no_version.ts': plugin('NoVersion', '', ''),
        'empty_version.ts': plugin('EmptyVersion', '', "static version = '  '"),
        'syntax.ts': 'export default class { this is not TypeScript',
        'throws_on_import.ts': "throw new Error('import-time failure')\n",
        'imports_missing.ts': "import 'no-such-package-anywhere'\nexport default 1\n",
        'no_class.ts': 'export const notAPlugin = 1\n',
        'two_classes.ts': `import { PluginBase } from 'server-manager'
export class A extends PluginBase { static version = '1.0.0' }
export class B extends PluginBase { static version = '1.0.0' }
`,
        'named_only.ts': `import { PluginBase } from 'server-manager'
export const helper = 1
export class OnlyOne extends PluginBase { static version = '3.0.0' }
`,
        'old_api.ts': plugin('OldApi', '', "static version = '1.0.0'\n  static engines = '^0.9.0'"),
        'needs_ghost.ts': plugin('NeedsGhost', '', "static version = '1.0.0'\n  static requires = ['ghost']"),
        'cycle_a.ts': plugin('CycleA', '', "static version = '1.0.0'\n  static requires = ['cycle_b']"),
        'cycle_b.ts': plugin('CycleB', '', "static version = '1.0.0'\n  static requires = ['cycle_a']"),
        'twin.ts': plugin('Twin'),
        'twin/index.ts': plugin('TwinPackage'),
        'ctor_throws.ts': plugin(
          'CtorThrows',
          'constructor(c: any) { super(c); throw new Error("no constructor for you") }',
        ),
        'onload_throws.ts': plugin(
          'OnloadThrows',
          `override async onLoad() {
    await this.api.listenForEvent('leak:check', () => 1)
    throw new Error('onLoad broke')
  }`,
        ),
      },
      {
        enable: ['good', 'old_api', 'needs_ghost', 'cycle_a', 'cycle_b', 'ctor_throws', 'onload_throws'],
      },
      async ({ manager }) => {
        const records = byName(await manager.bus.request('plugins:list', {}))
        const summary = (name: string) => [records[name]?.state, records[name]?.error?.code]
        expect(summary('good')).to.deep.equal(['loaded', undefined])
        expect(summary('no_version')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_INVALID_VERSION'])
        expect(summary('empty_version')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_INVALID_VERSION'])
        expect(summary('syntax')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_IMPORT_FAILED'])
        expect(summary('throws_on_import')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_IMPORT_FAILED'])
        expect(records.throws_on_import?.error?.message).to.contain('import-time failure')
        expect(summary('imports_missing')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_IMPORT_FAILED'])
        expect(summary('no_class')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_NO_CLASS'])
        expect(summary('two_classes')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_NO_CLASS'])
        expect(records.two_classes?.error?.message).to.contain('exports 2 plugin classes and no default')
        expect(records.named_only).to.include({ state: 'disabled', version: '3.0.0' })
        expect(summary('old_api')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_ENGINES_MISMATCH'])
        expect(summary('needs_ghost')).to.deep.equal(['failed', 'SM_ERR_PLUGIN_REQUIRES_MISSING'])
        expect(summary('cycle_a')).to.deep.equal(['failed', 'SM_ERR_PLUGIN_REQUIRES_CYCLE'])
        expect(summary('cycle_b')).to.deep.equal(['failed', 'SM_ERR_PLUGIN_REQUIRES_CYCLE'])
        expect(summary('twin')).to.deep.equal(['invalid', 'SM_ERR_PLUGIN_DUPLICATE_NAME'])
        expect(summary('ctor_throws')).to.deep.equal(['failed', 'SM_ERR_PLUGIN_LOAD_FAILED'])
        expect(summary('onload_throws')).to.deep.equal(['failed', 'SM_ERR_PLUGIN_LOAD_FAILED'])
        expect(records.onload_throws?.error?.message).to.contain('failed in onLoad: onLoad broke')
        // A plugin that failed in onLoad leaves no listener behind.
        expect(manager.bus.hasListeners('leak:check')).to.equal(false)
        // The enabled flag of a failed plugin is kept, for when it is fixed.
        expect(records.onload_throws?.enabled).to.equal(true)
      },
    )
  })

  it('describes a plugin from its doc comment, unless it has a static description', () =>
    startWithPlugins({
      'documented.ts': `import { PluginBase } from 'server-manager'\n/**\n * Keeps the\n * lights on.\n */\nexport default class Documented extends PluginBase {\n  static version = '2.0.0'\n  static author = 'ops'\n}\n`,
      'explicit.ts': plugin('Explicit', '', "static version = '1.0.0'\n  static description = 'Said outright.'"),
      'silent.ts': plugin('Silent'),
    }).then(async ({ manager }) => {
      const records = byName(await manager.bus.request('plugins:list', {}))
      expect(records.documented).to.include({
        description: 'Keeps the lights on.',
        version: '2.0.0',
        author: 'ops',
        enabled: false,
        state: 'disabled',
      })
      expect(records.explicit?.description).to.equal('Said outright.')
      expect(records.silent?.description).to.equal('No description available.')
      await manager.stop()
    }))

  it('loads in requires order, unloads in reverse, and releases every listener', async () => {
    const { manager } = await startWithPlugins(
      {
        'zeta.ts': tracing('Zeta', "static version = '1.0.0'\n  static requires = ['alpha']"),
        'alpha.ts': tracing('Alpha'),
        'listener.ts': plugin(
          'Listener',
          `override async onLoad() { await this.api.listenForEvent('test:ping', () => 'pong') }
  afterSettingUpdate() {}`,
        ),
      },
      { enable: ['zeta', 'alpha', 'listener'] },
    )
    expect(byName(await manager.bus.request('plugins:list', {})).zeta?.state).to.equal('loaded')
    expect(loads()).to.deep.equal(['load Alpha', 'load Zeta'])
    expect(manager.bus.hasListeners(channelOf('test:ping'))).to.equal(true)
    expect(manager.bus.hasListeners('after_setting_update')).to.equal(true)
    await manager.stop()
    expect(loads()).to.deep.equal(['load Alpha', 'load Zeta', 'unload Zeta', 'unload Alpha'])
    expect(manager.bus.hasListeners(channelOf('test:ping'))).to.equal(false)
  })

  it('enables, disables and reloads without a restart, running changed code on reload', async () => {
    const { manager, dataDir } = await startWithPlugins({
      'counter.ts': plugin('Counter', `override onLoad() { ${trace("'v1'")} }`),
    })
    const { bus } = manager
    try {
      expect(loads()).to.deep.equal([])
      const enabled = await bus.request('plugins:set_enabled', { name: 'counter', enabled: true })
      expect(enabled).to.deep.equal({ status: 'success', message: "Plugin 'counter' enabled." })
      expect(loads()).to.deep.equal(['v1'])
      writePlugins(dataDir, {
        'counter.ts': plugin('Counter', `override onLoad() { ${trace("'v2'")} }`, "static version = '2.0.0'"),
      })
      const report = await bus.request('plugins:reload', {})
      expect(report.loaded).to.deep.equal(['counter'])
      expect(loads()).to.deep.equal(['v1', 'v2'])
      expect(byName(await bus.request('plugins:list', {})).counter?.version).to.equal('2.0.0')
      await bus.request('plugins:set_enabled', { name: 'counter', enabled: false })
      expect(byName(await bus.request('plugins:list', {})).counter).to.include({ enabled: false, state: 'disabled' })
      const unknown = await rejection(bus.request('plugins:set_enabled', { name: 'nope', enabled: true }))
      expect(unknown.code).to.equal('SM_ERR_PLUGIN_NOT_FOUND')
    } finally {
      await manager.stop()
    }
  })

  it('never imports an unchanged disabled plugin again: only the enabled one runs its module at the next start', async () => {
    const counting = (className: string) => `;${trace(`'${className}'`)}\n${plugin(className)}`
    const dataDir = tempDir()
    useTrace(dataDir)
    writePlugins(dataDir, { 'on.ts': counting('On'), 'off.ts': counting('Off') })
    await withManager(async ({ bus }) => bus.request('plugins:set_enabled', { name: 'on', enabled: true }), { dataDir })
    expect([...new Set(traced())].sort()).to.deep.equal(['Off', 'On'])
    useTrace(dataDir)
    await withManager(async () => undefined, { dataDir })
    // Discovery reads its statics in an inspector thread, then its own thread imports it to run it.
    expect(traced()).to.include('On').and.not.include('Off')
  })

  for (const isolation of ['thread', 'none']) {
    it(`marks a plugin whose class throws while it is read invalid and loads the others (isolation ${isolation})`, async () => {
      const files = {
        'odd.ts': plugin('Odd', '', "static get version(): string { throw new Error('no version today') }"),
        'even.ts': plugin('Even'),
      }
      const { manager, dataDir } = await startWithPlugins(files, {
        settings: { 'plugins.isolation': isolation },
        enable: ['even', 'odd'],
      })
      await manager.stop()
      // A new start too: one plugin that cannot be read never stops the manager.
      await withManager(
        async ({ bus }) => {
          const plugins = byName(await bus.request('plugins:list', {}))
          expect(plugins.odd).to.include({ state: 'invalid' })
          expect(plugins.odd?.error?.code).to.equal('SM_ERR_PLUGIN_IMPORT_FAILED')
          expect(plugins.odd?.error?.message).to.contain('no version today')
          expect(plugins.even).to.include({ state: 'loaded' })
        },
        { dataDir },
      )
    })
  }

  it('keeps a broken plugin enabled and brings it back once it is fixed', async () => {
    const { manager, dataDir } = await startWithPlugins({ 'flaky.ts': plugin('Flaky') }, { enable: ['flaky'] })
    const state = async () => byName(await manager.bus.request('plugins:list', {})).flaky
    try {
      writePlugins(dataDir, { 'flaky.ts': 'export default class { broken' })
      await manager.bus.request('plugins:reload', {})
      expect(await state()).to.include({ enabled: true, state: 'invalid' })
      rmSync(join(dataDir, 'plugins', 'flaky.ts'))
      await manager.bus.request('plugins:reload', {})
      expect(await state()).to.include({ enabled: true, state: 'missing' })
      writePlugins(dataDir, { 'flaky.ts': plugin('Flaky', '', "static version = '1.0.1'") })
      await manager.bus.request('plugins:reload', {})
      expect(await state()).to.include({ enabled: true, state: 'loaded', version: '1.0.1' })
    } finally {
      await manager.stop()
    }
  })

  it('lets a missing plugin be inspected and disabled, and refuses to enable it', async () => {
    const { manager, dataDir } = await startWithPlugins({ 'gone.ts': plugin('Gone') }, { enable: ['gone'] })
    try {
      rmSync(join(dataDir, 'plugins', 'gone.ts'))
      await manager.bus.request('plugins:reload', {})
      expect(await manager.bus.request('plugins:info', { name: 'gone' })).to.include({
        state: 'missing',
        enabled: true,
      })
      const refused = await rejection(manager.bus.request('plugins:set_enabled', { name: 'gone', enabled: true }))
      expect(refused.code).to.equal('SM_ERR_PLUGIN_MISSING')
      const result = await manager.bus.request('plugins:set_enabled', { name: 'gone', enabled: false })
      expect(result.status).to.equal('success')
      expect(await manager.bus.request('plugins:info', { name: 'gone' })).to.include({
        state: 'missing',
        enabled: false,
      })
    } finally {
      await manager.stop()
    }
  })

  it('writes plugins.json with every discovered plugin', async () => {
    const { manager, dataDir } = await startWithPlugins(
      { 'a.ts': plugin('A'), 'b.ts': plugin('B', '', '') },
      { enable: ['a'] },
    )
    await manager.stop()
    const registry = JSON.parse(readFileSync(join(dataDir, 'plugins.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >
    expect(registry.a).to.deep.include({
      enabled: true,
      version: '1.0.0',
      author: 'unknown',
      source: 'user',
      state: 'loaded',
    })
    expect(registry.a?.path).to.equal(join(dataDir, 'plugins', 'a.ts'))
    expect(registry.b).to.deep.include({ enabled: false, state: 'invalid' })
    expect(registry.b?.error).to.deep.include({ code: 'SM_ERR_PLUGIN_INVALID_VERSION' })
  })

  it('records plugin facts in the event log, only when something changes', async () => {
    const dataDir = tempDir()
    writePlugins(dataDir, { 'fact.ts': plugin('Fact') })
    await withManager(async ({ bus }) => bus.request('plugins:set_enabled', { name: 'fact', enabled: true }), {
      dataDir,
    })
    await withManager(async () => undefined, { dataDir })
    await withManager(
      async ({ bus }) => {
        const facts = await bus.request('events:read', { types: ['plugins:*', 'after_set_plugin_status'] })
        expect(facts.map((f) => f.type)).to.deep.equal([
          'plugins:discovered',
          'after_set_plugin_status',
          'plugins:loaded',
        ])
        expect(facts[1]?.payload).to.deep.include({ pluginName: 'fact', enabled: true })
        expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
      },
      { dataDir },
    )
  })

  it('lets a user plugin override a shipped default, and enables defaults marked so on first sight', async () => {
    const packageRoot = tempDir()
    const dataDir = tempDir()
    const defaults = join(packageRoot, 'plugins', 'default')
    const shipped = (className: string, extra = '') =>
      plugin(className, '', `static version = '1.0.0'\n  static enabledByDefault = true${extra}`)
    mkdirSync(defaults, { recursive: true })
    writeFileSync(join(defaults, 'autostart.ts'), shipped('Autostart'))
    writeFileSync(join(defaults, 'notes.ts'), shipped('Notes'))
    writePlugins(dataDir, { 'notes.ts': plugin('MyNotes', '', "static version = '9.0.0'") })
    const kernel = createKernel({ config: { dataDir }, logger: silentLogger }).use(
      eventsService(),
      settingsService(),
      tasksService(),
      metricsService(),
      serversService(),
      pluginsService({ sdk: require('../../../index'), packageRoot }),
    )
    await kernel.start()
    try {
      const records = byName(await kernel.bus.request('plugins:list', {}))
      expect(records.autostart).to.include({ source: 'default', enabled: true, state: 'loaded' })
      expect(records.notes).to.include({ source: 'user', version: '9.0.0', enabled: false })
    } finally {
      await kernel.stop()
    }
  })

  it('does not start plugins from the examples folder unless plugins.dev_examples is on', async () => {
    const manager = await startManager()
    try {
      expect(await manager.bus.request('plugins:list', {})).to.deep.equal([])
      await manager.bus.request('settings:set', { key: 'plugins.dev_examples', value: true })
      await manager.bus.request('plugins:reload', {})
      const names = (await manager.bus.request('plugins:list', {})).map((r) => `${r.name}:${r.source}`)
      expect(names).to.include.members(['greeter:example', 'pingplugin:example', 'event_sender:example'])
    } finally {
      await manager.stop()
    }
  })
})
