import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { resolveDataDir } from '../../../lib/data-dir'
import { withManager } from '../../helpers/manager'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

describe('services/settings', () => {
  it('answers defaults for known keys, including paths inside the data directory', () =>
    withManager(async ({ bus, config }) => {
      expect(await bus.request('settings:get', { key: 'web.port' })).to.deep.equal({ found: true, value: 11325 })
      expect(await bus.request('settings:get', { key: 'web.host' })).to.deep.equal({ found: true, value: '127.0.0.1' })
      expect(await bus.request('settings:get', { key: 'events.retention_days' })).to.deep.equal({
        found: true,
        value: 365,
      })
      expect(await bus.request('settings:get', { key: 'plugins.hook_timeout_ms' })).to.deep.equal({
        found: true,
        value: 10_000,
      })
      expect(await bus.request('settings:get', { key: 'paths.plugins' })).to.deep.equal({
        found: true,
        value: join(config.dataDir, 'plugins'),
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
      expect((await bus.request('settings:get', { key: 'web' })).value).to.deep.include({
        host: '127.0.0.1',
        port: 8080,
      })
      const all = await bus.request('settings:get_all', {})
      expect((all.web as { port: number }).port).to.equal(8080)
      expect(all.events).to.deep.equal({ retention_days: 365, max_events: 1_000_000 })
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
        mode: 'merge',
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

  it('refuses an undeclared key outside custom with one error on get, set and unset, naming the nearest key', () =>
    withManager(async ({ bus }) => {
      for (const call of [
        bus.request('settings:set', { key: 'webb.port', value: 1 }),
        bus.request('settings:get', { key: 'webb.port' }),
        bus.request('settings:unset', { key: 'webb.port' }),
      ]) {
        const error = await rejection(call)
        expect(error.code).to.equal('SM_ERR_SETTINGS_UNKNOWN_KEY')
        expect(error.message).to.contain("Did you mean 'web.port'?")
        expect(error.message).to.contain("data goes under 'custom.<key>'")
      }
      expect((await rejection(bus.request('settings:get', { key: 'nosuch' }))).code).to.equal(
        'SM_ERR_SETTINGS_UNKNOWN_KEY',
      )
      expect(await bus.request('events:read', {})).to.deep.equal([])
    }))

  it('merges an object into a section or key, replaces it with mode replace, and says what went', () =>
    withManager(async ({ bus }) => {
      await bus.request('settings:set', { key: 'web.host', value: '0.0.0.0' })
      await bus.request('settings:set', { key: 'web', value: { port: 9001 } })
      expect((await bus.request('settings:get', { key: 'web' })).value).to.deep.include({ host: '0.0.0.0', port: 9001 })
      await bus.request('settings:set', { key: 'custom.a', value: 1 })
      await bus.request('settings:set', { key: 'custom.b', value: { x: 1, y: { z: 2 } } })
      await bus.request('settings:set', { key: 'custom', value: {} })
      expect((await bus.request('settings:get', { key: 'custom' })).value).to.deep.equal({
        a: 1,
        b: { x: 1, y: { z: 2 } },
      })
      const replaced = await bus.request('settings:set', { key: 'custom.b', value: { x: 5 }, mode: 'replace' })
      expect(replaced.removed).to.deep.equal(['custom.b.y.z'])
      expect((await bus.request('settings:get', { key: 'custom.b' })).value).to.deep.equal({ x: 5 })
      await bus.request('settings:set', { key: 'custom.empty', value: {} })
      expect((await bus.request('settings:get', { key: 'custom.empty' })).value).to.deep.equal({})
      await bus.request('settings:set', { key: 'custom.a.deeper', value: true })
      expect((await bus.request('settings:get', { key: 'custom.a' })).value).to.deep.equal({ deeper: true })
      expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
      await bus.request('events:rebuild', {})
      expect((await bus.request('settings:get', { key: 'custom' })).value).to.deep.equal({
        a: { deeper: true },
        b: { x: 5 },
        empty: {},
      })
    }))

  it('unsets: a declared key returns to its default, a custom key goes, an empty one is not found', () =>
    withManager(async ({ bus }) => {
      await bus.request('settings:set', { key: 'web.port', value: 8080 })
      const unset = await bus.request('settings:unset', { key: 'web.port' })
      expect(unset).to.include({ key: 'web.port', value: 11325, previous: 8080, mode: 'unset' })
      await bus.request('settings:set', { key: 'custom.gone', value: { a: 1 } })
      expect((await bus.request('settings:unset', { key: 'custom.gone' })).removed).to.deep.equal(['custom.gone.a'])
      expect(await bus.request('settings:get', { key: 'custom.gone' })).to.deep.equal({ found: false })
      expect((await rejection(bus.request('settings:unset', { key: 'custom.gone' }))).code).to.equal(
        'SM_ERR_SETTINGS_NOT_FOUND',
      )
      const modes = (await bus.request('events:read', { types: ['after_setting_update'] })).map(
        (e) => (e.payload as { mode: string }).mode,
      )
      expect(modes).to.deep.equal(['merge', 'unset', 'merge', 'unset'])
    }))

  it('replays any mix of merges, replaces and unsets (folded in one batch) to the state built change by change', () =>
    withManager(async ({ bus }) => {
      let seed = 7
      const random = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
        return seed % n
      }
      const keys = ['custom.a', 'custom.a.b', 'custom.a.b.c', 'custom.a.d', 'custom.e', 'custom.e.f']
      const values = [1, 'x', [1, 2], {}, { b: 2 }, { b: { c: 3 }, d: 4 }, { f: null }, true]
      for (let i = 0; i < 300; i++) {
        const key = keys[random(keys.length)] as string
        const op = random(5)
        if (op === 0) await bus.request('settings:unset', { key }).catch(() => undefined)
        else
          await bus.request('settings:set', {
            key,
            value: values[random(values.length)],
            mode: op === 1 ? 'replace' : 'merge',
          })
      }
      const live = (await bus.request('settings:get', { key: 'custom' })).value
      expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
      await bus.request('events:rebuild', {})
      expect((await bus.request('settings:get', { key: 'custom' })).value).to.deep.equal(live)
    }))

  it('measures the 1 MiB limit in bytes, not characters', () =>
    withManager(async ({ bus }) => {
      const euro = '€'.repeat(400_000) // 400 000 characters, 1 200 000 bytes
      const error = await rejection(bus.request('settings:set', { key: 'custom.big', value: euro }))
      expect(error.code).to.equal('SM_ERR_SETTINGS_INVALID_VALUE')
      expect(error.message).to.contain('larger than 1 MiB')
      await bus.request('settings:set', { key: 'custom.fits', value: 'a'.repeat(1_000_000) })
    }))

  it('refuses values of the wrong type or range, also inside a whole section', () =>
    withManager(async ({ bus }) => {
      const bad: [string, unknown][] = [
        ['web.port', 'abc'],
        ['web.port', 70_000],
        ['web.port', 80.5],
        ['web', { port: 'x' }],
        ['web', 'not an object'],
        ['events.retention_days', -1],
        ['plugins.dev_examples', 'yes'],
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
      const plugins = join(config.dataDir, 'plugins')
      expect(existsSync(plugins)).to.equal(false)
      expect(await bus.request('settings:path', { name: 'plugins' })).to.deep.equal({ path: plugins })
      expect(existsSync(plugins)).to.equal(true)
      await bus.request('settings:set', { key: 'paths.plugins', value: 'elsewhere/plugins' })
      expect((await bus.request('settings:path', { name: 'plugins' })).path).to.equal(
        join(config.dataDir, 'elsewhere', 'plugins'),
      )
      expect((await rejection(bus.request('settings:path', { name: 'nope' }))).code).to.equal(
        'SM_ERR_SETTINGS_UNKNOWN_KEY',
      )
    }))

  it('reports a path that cannot be created', () =>
    withManager(async ({ bus, config }) => {
      writeFileSync(join(config.dataDir, 'blocker'), '')
      await bus.request('settings:set', { key: 'paths.plugins', value: join(config.dataDir, 'blocker', 'plugins') })
      expect((await rejection(bus.request('settings:path', { name: 'plugins' }))).code).to.equal(
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
