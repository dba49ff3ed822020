import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { resolveDataDir } from '../../../services/settings'
import { withManager } from '../../helpers/manager'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

describe('services/settings', () => {
  it('answers defaults for known keys, including paths inside the data directory', () =>
    withManager(async ({ bus, config }) => {
      expect(await bus.request('settings:get', { key: 'web.port' })).to.deep.equal({ found: true, value: 11325 })
      expect(await bus.request('settings:get', { key: 'web.host' })).to.deep.equal({ found: true, value: '127.0.0.1' })
      expect(await bus.request('settings:get', { key: 'retention.backups' })).to.deep.equal({ found: true, value: 3 })
      expect(await bus.request('settings:get', { key: 'plugins.hook_timeout_ms' })).to.deep.equal({
        found: true,
        value: 10_000,
      })
      expect(await bus.request('settings:get', { key: 'paths.backups' })).to.deep.equal({
        found: true,
        value: join(config.dataDir, 'backups'),
      })
      expect(await bus.request('settings:get', { key: 'custom.nothing' })).to.deep.equal({ found: false })
    }))

  it('stores custom.<key> values of any JSON shape and returns them', () =>
    withManager(async ({ bus }) => {
      await bus.request('settings:set', { key: 'custom.greeting', value: 'hello' })
      await bus.request('settings:set', { key: 'custom.motd', value: { text: 'hi', days: [1, 2] } })
      await bus.request('settings:set', { key: 'custom.motd.text', value: 'hey' })
      expect((await bus.request('settings:get', { key: 'custom.greeting' })).value).to.equal('hello')
      expect((await bus.request('settings:get', { key: 'custom.motd' })).value).to.deep.equal({
        text: 'hey',
        days: [1, 2],
      })
      expect((await bus.request('settings:get', { key: 'custom' })).value).to.deep.equal({
        greeting: 'hello',
        motd: { text: 'hey', days: [1, 2] },
      })
    }))

  it('merges stored values over defaults for a whole section', () =>
    withManager(async ({ bus }) => {
      await bus.request('settings:set', { key: 'web.port', value: 8080 })
      expect((await bus.request('settings:get', { key: 'web' })).value).to.deep.equal({
        host: '127.0.0.1',
        port: 8080,
        token_expires_weeks: 4,
      })
      const all = await bus.request('settings:get_all', {})
      expect((all.web as { port: number }).port).to.equal(8080)
      expect(all.retention).to.deep.equal({ backups: 3, downloads: 3, logs: 3 })
    }))

  it('keeps values across restarts (they live in the event log)', async () => {
    const dataDir = tempDir()
    await withManager(async ({ bus }) => bus.request('settings:set', { key: 'custom.kept', value: [1, 'two'] }), {
      dataDir,
    })
    await withManager(
      async ({ bus }) => {
        expect((await bus.request('settings:get', { key: 'custom.kept' })).value).to.deep.equal([1, 'two'])
      },
      { dataDir },
    )
  })

  it('records each change as an after_setting_update fact with the previous value and the actor', () =>
    withManager(async ({ bus }) => {
      await bus.request('settings:set', { key: 'web.port', value: 8080 }, { actor: 'cli:alice' })
      const [fact] = await bus.request('events:read', { types: ['after_setting_update'] })
      expect(fact?.actor).to.equal('cli:alice')
      expect(fact?.payload).to.deep.equal({
        key: 'web.port',
        value: 8080,
        previous: 11325,
        result: { status: 'success', message: "Global setting 'web.port' updated." },
      })
    }))

  it('refuses malformed keys with a coded error and writes nothing', () =>
    withManager(async ({ bus }) => {
      for (const key of ['', '   ', 'a..b', '.a', 'a.', 'a b', 'custom.__proto__', 'custom.x/y', 'x'.repeat(201)]) {
        const error = await rejection(
          bus.request('settings:set', { key: key.replace('x'.repeat(201), `custom.${'x'.repeat(201)}`), value: 1 }),
        )
        expect(error.code, key).to.equal('SM_ERR_SETTINGS_INVALID_KEY')
        expect((await rejection(bus.request('settings:get', { key }))).code).to.equal('SM_ERR_SETTINGS_INVALID_KEY')
      }
      expect(await bus.request('events:read', {})).to.deep.equal([])
    }))

  it('refuses unknown keys outside custom, naming the known sections', () =>
    withManager(async ({ bus }) => {
      const error = await rejection(bus.request('settings:set', { key: 'webb.port', value: 1 }))
      expect(error.code).to.equal('SM_ERR_SETTINGS_INVALID_KEY')
      expect(error.message).to.contain("plugin data goes under 'custom.'")
    }))

  it('refuses values of the wrong type or range, also inside a whole section', () =>
    withManager(async ({ bus }) => {
      const bad: [string, unknown][] = [
        ['web.port', 'abc'],
        ['web.port', 70_000],
        ['web.port', 80.5],
        ['web', { port: 'x' }],
        ['web', 'not an object'],
        ['retention.backups', -1],
        ['plugins.dev_examples', 'yes'],
        ['logging.level', 'loud'],
        ['custom', 5],
      ]
      for (const [key, value] of bad) {
        const error = await rejection(bus.request('settings:set', { key, value }))
        expect(error.code, `${key}=${JSON.stringify(value)}`).to.equal('SM_ERR_SETTINGS_INVALID_VALUE')
      }
      expect((await bus.request('settings:get', { key: 'web.port' })).value).to.equal(11325)
      expect(await bus.request('events:read', {})).to.deep.equal([])
    }))

  it('refuses values that are not JSON', () =>
    withManager(async ({ bus }) => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      for (const value of [undefined, () => 1, 10n, cyclic]) {
        const error = await rejection(bus.request('settings:set', { key: 'custom.x', value }))
        expect(error.code).to.equal('SM_ERR_SETTINGS_INVALID_VALUE')
      }
    }))

  it('lets a before_setting_update listener veto a change, recorded as cancelled', () =>
    withManager(async ({ bus }) => {
      const seen: unknown[] = []
      bus.on(
        'before_setting_update',
        ({ key }) => (key === 'web.port' ? { cancel: true, reason: 'port is managed' } : undefined),
        {
          owner: 'plugin:guard',
        },
      )
      bus.on('after_setting_update', ({ result }) => seen.push(result.status), { owner: 'plugin:audit' })
      const error = await rejection(bus.request('settings:set', { key: 'web.port', value: 1234 }))
      expect(error.code).to.equal('SM_ERR_SETTINGS_UPDATE_CANCELLED')
      expect(error.message).to.contain("cancelled by 'plugin:guard': port is managed")
      await bus.request('settings:set', { key: 'custom.ok', value: true })
      expect(seen).to.deep.equal(['cancelled', 'success'])
      expect((await bus.request('settings:get', { key: 'web.port' })).value).to.equal(11325)
      const facts = await bus.request('events:read', {})
      expect(facts.map((f) => (f.payload as { result: { status: string } }).result.status)).to.deep.equal([
        'cancelled',
        'success',
      ])
      expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
    }))

  it('lets after_setting_update listeners read the new value', () =>
    withManager(async ({ bus }) => {
      let read: unknown
      bus.on(
        'after_setting_update',
        async () => {
          read = (await bus.request('settings:get', { key: 'custom.fresh' })).value
        },
        { owner: 'test' },
      )
      await bus.request('settings:set', { key: 'custom.fresh', value: 42 })
      expect(read).to.equal(42)
    }))

  it('creates a path directory on first use, not before', () =>
    withManager(async ({ bus, config }) => {
      const backups = join(config.dataDir, 'backups')
      expect(existsSync(backups)).to.equal(false)
      expect(await bus.request('settings:path', { name: 'backups' })).to.deep.equal({ path: backups })
      expect(existsSync(backups)).to.equal(true)
      await bus.request('settings:set', { key: 'paths.content', value: 'elsewhere/content' })
      expect((await bus.request('settings:path', { name: 'content' })).path).to.equal(
        join(config.dataDir, 'elsewhere', 'content'),
      )
      expect((await rejection(bus.request('settings:path', { name: 'nope' }))).code).to.equal(
        'SM_ERR_SETTINGS_INVALID_KEY',
      )
    }))

  it('reports a path that cannot be created', () =>
    withManager(async ({ bus, config }) => {
      writeFileSync(join(config.dataDir, 'blocker'), '')
      await bus.request('settings:set', { key: 'paths.logs', value: join(config.dataDir, 'blocker', 'logs') })
      expect((await rejection(bus.request('settings:path', { name: 'logs' }))).code).to.equal(
        'SM_ERR_DATA_DIR_UNUSABLE',
      )
    }))

  describe('the data directory', () => {
    it('is $SM_DATA_DIR when set, else ~/.server-manager', () => {
      expect(resolveDataDir({ SM_DATA_DIR: '/srv/sm' })).to.equal('/srv/sm')
      expect(resolveDataDir({ SM_DATA_DIR: '  ' })).to.match(/\.server-manager$/)
      expect(resolveDataDir({})).to.match(/\.server-manager$/)
    })
  })
})
