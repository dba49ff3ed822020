import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { open } from 'sqlite'
import sqlite3 from 'sqlite3'
import { Bus, BusScope, silentLogger } from '../../../kernel'
import type { Projection, StoredEvent } from '../../../services/events'
import { databasePath } from '../../../services/events'
import { PROJECTIONS } from '../../../services/events/contract'
import { SqliteDatabase } from '../../../services/events/database'
import { EventStore } from '../../../services/events/event-store'
import { Follower } from '../../../services/events/follower'
import { managerCatalogue, startManager, withManager } from '../../helpers/manager'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

/** A projection that counts events per type, to exercise the store without the settings service. */
const counter = (version = 1, failOn?: string): Projection => ({
  name: 'counter',
  version,
  types: ['test_a', 'test_b', 'test_fail'],
  schema: ['CREATE TABLE IF NOT EXISTS counter (type TEXT PRIMARY KEY, n INTEGER NOT NULL)'],
  async apply(sql, events) {
    for (const event of events) {
      if (event.type === failOn) throw new Error('cannot fold this one')
      await sql.run('INSERT INTO counter (type, n) VALUES (?, 1) ON CONFLICT (type) DO UPDATE SET n = n + 1', [
        event.type,
      ])
    }
  },
  async reset(sql) {
    await sql.run('DELETE FROM counter')
  },
  async snapshot(sql) {
    return Object.fromEntries(
      (await sql.all<{ type: string; n: number }>('SELECT * FROM counter ORDER BY type')).map((r) => [r.type, r.n]),
    )
  },
  async restore(sql, state) {
    for (const [type, n] of Object.entries(state as Record<string, number>)) {
      await sql.run('INSERT INTO counter (type, n) VALUES (?, ?)', [type, n])
    }
  },
})

const event = (type: string, payload: unknown = {}, actor = 'core') => ({ type, actor, payload })

describe('services/events: the event log', () => {
  it('appends a batch atomically with consecutive sequence numbers, time and actor', () =>
    withManager(async ({ bus }) => {
      const before = Date.now()
      const stored = await bus.request('events:append', {
        events: Array.from({ length: 450 }, (_, i) => event('test_a', { i }, 'cli:alice')),
      })
      expect(stored.map((e) => e.seq)).to.deep.equal(Array.from({ length: 450 }, (_, i) => i + 1))
      const first = stored[0] as StoredEvent
      expect(first.actor).to.equal('cli:alice')
      expect(Date.parse(first.time)).to.be.within(before - 1, Date.now() + 1)
      const read = await bus.request('events:read', { limit: 10_000 })
      expect(read).to.deep.equal(stored)
    }))

  it('reads by sequence, type (with prefix patterns), time and tail', () =>
    withManager(async ({ bus }) => {
      await bus.request('events:append', {
        events: [event('after_x'), event('after_y'), event('plugins:loaded'), event('after_x')],
      })
      const types = async (query: Parameters<typeof bus.request<'events:read'>>[1]) =>
        (await bus.request('events:read', query)).map((e) => `${e.seq}:${e.type}`)
      expect(await types({ afterSeq: 2 })).to.deep.equal(['3:plugins:loaded', '4:after_x'])
      expect(await types({ types: ['after_*'] })).to.deep.equal(['1:after_x', '2:after_y', '4:after_x'])
      expect(await types({ types: ['after_y', 'plugins:loaded'] })).to.deep.equal(['2:after_y', '3:plugins:loaded'])
      expect(await types({ tail: true, limit: 2 })).to.deep.equal(['3:plugins:loaded', '4:after_x'])
      expect(await types({ since: '1h' })).to.have.length(4)
      expect(await types({ until: '1h' })).to.deep.equal([])
      expect(await types({ since: new Date(Date.now() + 60_000).toISOString() })).to.deep.equal([])
    }))

  it('treats % and _ in a type pattern literally', () =>
    withManager(async ({ bus }) => {
      await bus.request('events:append', { events: [event('a_b'), event('axb')] })
      const read = await bus.request('events:read', { types: ['a_*'] })
      expect(read.map((e) => e.type)).to.deep.equal(['a_b'])
    }))

  it('refuses malformed queries with a coded error', () =>
    withManager(async ({ bus }) => {
      for (const query of [
        { since: 'yesterday-ish' },
        { limit: 0 },
        { limit: 20_000 },
        { afterSeq: -1 },
        { types: [''] },
      ]) {
        const error = await rejection(bus.request('events:read', query))
        expect(error.code, JSON.stringify(query)).to.equal('SM_ERR_EVENTS_INVALID_QUERY')
      }
    }))

  it('refuses invalid events and appends none of the batch', () =>
    withManager(async ({ bus }) => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      for (const bad of [event(''), { type: 'x', actor: '', payload: {} }, event('x', cyclic), event('x', 10n)]) {
        const error = await rejection(bus.request('events:append', { events: [event('ok'), bad] }))
        expect(error.code).to.equal('SM_ERR_EVENTS_INVALID_EVENT')
      }
      expect(await bus.request('events:read', {})).to.deep.equal([])
    }))

  it('stores payloads as JSON: what a listener of a fact sees equals what a replay sees', () =>
    withManager(async ({ bus }) => {
      const [stored] = await bus.request('events:append', {
        events: [event('x', { when: new Date(0), gone: undefined })],
      })
      expect(stored?.payload).to.deep.equal({ when: '1970-01-01T00:00:00.000Z' })
    }))

  it('keeps every string exactly, and each of many concurrent appends gets its own events', () =>
    withManager(async ({ bus }) => {
      const odd = 'é😀 "quoted" \\ back\nline \u0000 nul \ud800 lone'
      const appends = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          bus.request('events:append', {
            events: [event('test_a', { i, odd, [odd]: [odd] }, `cli:${odd}`), event('test_b', i % 2 ? null : [i])],
          }),
        ),
      )
      appends.forEach((stored, i) => {
        expect(stored.map((e) => e.payload)).to.deep.equal([{ i, odd, [odd]: [odd] }, i % 2 ? null : [i]])
        expect(stored[1]?.seq).to.equal((stored[0]?.seq ?? 0) + 1)
      })
      const read = await bus.request('events:read', { limit: 10_000 })
      expect(read).to.deep.equal(appends.flat().sort((a, b) => a.seq - b.seq))
      // In a payload a lone surrogate survives (JSON escapes it); in a column SQLite stores U+FFFD.
      expect(read[0]?.actor).to.equal(`cli:${odd.replace('\ud800', '\ufffd')}`)
    }))

  it('records every after_* fact and declared fact types, but no intent', () =>
    withManager(async ({ bus }) => {
      await bus.request('events:declare_facts', { types: ['plugins:loaded'] })
      const seen: (number | undefined)[] = []
      bus.on('after_setting_update', (_p, meta) => seen.push(meta.seq), { owner: 'test' })
      await bus.emit('before_setting_update', { key: 'custom.a', value: 1 })
      await bus.emit('after_setting_update', { key: 'custom.a', value: 1, result: { status: 'cancelled' } })
      await bus.emit('plugins:loaded', { name: 'p', version: '1.0.0' })
      await bus.emit('test:not_a_fact', {})
      const log = await bus.request('events:read', {})
      expect(log.map((e) => e.type)).to.deep.equal(['after_setting_update', 'plugins:loaded'])
      expect(seen).to.deep.equal([1])
    }))

  describe('projections', () => {
    it('folds appends into a projection in the same transaction and rolls both back on failure', () =>
      withManager(async ({ bus, registry }) => {
        const projections = registry.resolve(PROJECTIONS)
        await projections.register(counter(1, 'test_fail'))
        await bus.request('events:append', { events: [event('test_a'), event('test_a'), event('test_b')] })
        const error = await rejection(bus.request('events:append', { events: [event('test_a'), event('test_fail')] }))
        expect(error.code).to.equal('SM_ERR_EVENTS_PROJECTION_FAILED')
        expect(error.message).to.contain(
          "projection 'counter' could not apply the events #4 to #5: cannot fold this one",
        )
        const state = await projections.read('counter', (sql) => counter().snapshot(sql))
        expect(state).to.deep.equal({ test_a: 2, test_b: 1 })
        expect((await bus.request('events:head', {})).seq).to.equal(3)
      }))

    it('rebuilds to the live state, and rebuilds automatically when the version changes', async () => {
      const dataDir = tempDir()
      await withManager(
        async ({ bus, registry }) => {
          expect((await registry.resolve(PROJECTIONS).register(counter())).rebuilt).to.equal(true)
          await bus.request('events:append', { events: [event('test_a'), event('test_b'), event('test_b')] })
          const rebuilt = await bus.request('events:rebuild', {})
          expect(rebuilt.replayed).to.equal(3)
          const check = await bus.request('events:check', {})
          expect(check).to.deep.equal({ integrity: 'ok', drifted: [], events: 3 })
        },
        { dataDir },
      )
      await withManager(
        async ({ registry }) => {
          const projections = registry.resolve(PROJECTIONS)
          expect((await projections.register(counter(1))).rebuilt).to.equal(false)
          expect((await projections.register(counter(2))).rebuilt).to.equal(true)
          const state = await projections.read('counter', (sql) => counter().snapshot(sql))
          expect(state).to.deep.equal({ test_a: 1, test_b: 2 })
        },
        { dataDir },
      )
    })

    it('finds a projection that drifted from the log, and rebuild repairs it', () =>
      withManager(async ({ bus, config, registry }) => {
        await registry.resolve(PROJECTIONS).register(counter())
        await bus.request('events:append', { events: [event('test_a')] })
        const db = await open({ filename: databasePath(config.dataDir), driver: sqlite3.Database })
        await db.run("UPDATE counter SET n = 99 WHERE type = 'test_a'")
        await db.close()
        expect((await bus.request('events:check', {})).drifted).to.deep.equal(['counter'])
        await bus.request('events:rebuild', {})
        expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
      }))

    it('rejects reading a projection nobody registered', () =>
      withManager(async ({ registry }) => {
        const error = await rejection(registry.resolve(PROJECTIONS).read('nope', async () => 1))
        expect(error.code).to.equal('SM_ERR_EVENTS_UNKNOWN_PROJECTION')
      }))
  })

  describe('retention', () => {
    it('deletes old history but a snapshot keeps the rebuilt state equal to the live one', () =>
      withManager(async ({ bus, registry }) => {
        const projections = registry.resolve(PROJECTIONS)
        await projections.register(counter())
        await bus.request('events:append', {
          events: Array.from({ length: 2_500 }, (_, i) => event(i % 3 ? 'test_a' : 'test_b')),
        })
        const pruned = await bus.request('events:prune', { maxEvents: 1_000 })
        expect(pruned).to.deep.equal({ deleted: 1_500, snapshotSeq: 2_500 })
        await bus.request('events:append', { events: [event('test_b')] })
        const log = await bus.request('events:read', { limit: 10_000 })
        expect(log[0]?.seq).to.equal(1_501)
        expect(log).to.have.length(1_001)
        const check = await bus.request('events:check', {})
        expect(check.drifted).to.deep.equal([])
        const rebuilt = await bus.request('events:rebuild', {})
        expect(rebuilt).to.include({ replayed: 1, fromSnapshot: 2_500 })
        const state = await projections.read('counter', (sql) => counter().snapshot(sql))
        expect(state).to.deep.equal({ test_a: 1_666, test_b: 835 })
        expect(await bus.request('events:prune', { maxAgeDays: 1 })).to.deep.equal({
          deleted: 0,
          snapshotSeq: undefined,
        })
      }))

    it('never reuses a sequence number after deleting history', () =>
      withManager(async ({ bus }) => {
        await bus.request('events:append', { events: Array.from({ length: 2_000 }, () => event('x')) })
        await bus.request('events:prune', { maxEvents: 1_000 })
        await bus.request('events:prune', { maxEvents: 1_000 })
        const [next] = await bus.request('events:append', { events: [event('x')] })
        expect(next?.seq).to.equal(2_001)
      }))
  })

  describe('following', () => {
    it('emits events:appended in sequence order for appends from this and another process', async () => {
      const dataDir = tempDir()
      const follower = await startManager({ dataDir })
      const writer = await startManager({ dataDir })
      try {
        const seen: number[] = []
        let allSeen: () => void = () => {}
        const four = new Promise<void>((resolve) => {
          allSeen = resolve
        })
        follower.bus.on(
          'events:appended',
          ({ events }) => {
            seen.push(...events.map((e) => e.seq))
            if (seen.length >= 4) allSeen()
          },
          { owner: 'test' },
        )
        await follower.bus.request('events:watch', { afterSeq: 0 })
        await writer.bus.request('events:append', { events: [event('a'), event('b')] })
        await follower.bus.request('events:append', { events: [event('c')] })
        await writer.bus.request('events:append', { events: [event('d')] })
        await four
        expect(seen).to.deep.equal([1, 2, 3, 4])
      } finally {
        await follower.stop()
        await writer.stop()
      }
    })

    it('renames facts stored under the names events had before namespaces, once, at open', async () => {
      const path = databasePath(tempDir())
      const before = await EventStore.create(await SqliteDatabase.open({ path }), [])
      const old = ['server_added', 'task_started', 'plugin_loaded'] // keep-old-name
      await before.append(old.map((type) => ({ type, actor: 'core', payload: {} })))
      await before.database.close()
      for (let open = 0; open < 2; open++) {
        const store = await EventStore.create(await SqliteDatabase.open({ path }), managerCatalogue().renamedEvents())
        expect((await store.read({})).map((e) => e.type)).to.deep.equal([
          'servers:added',
          'tasks:started',
          'plugins:loaded',
        ])
        await store.database.close()
      }
    })

    it("answers a projection's view from memory until this process or another one changes the database, frozen", async () => {
      await withTwoProcesses(async (here, there) => {
        let reads = 0
        const counts = async (sql: import('../../../services/events').Sql) => {
          reads++
          return (await counter().snapshot(sql)) as Record<string, number>
        }
        const view = () => here.viewProjection('counter', counts) as Promise<Record<string, number>>
        await here.append([event('test_a')])
        expect(await view()).to.deep.equal({ test_a: 1 })
        expect(await view()).to.equal(await view())
        expect(reads).to.equal(1)
        // Shared by every caller: nobody can change it under the others.
        const shared = await view()
        expect(() => {
          shared.test_a = 9
        }).to.throw(TypeError)
        // A fact this process folds; a fact no projection folds leaves the view as it was.
        await here.append([event('test_b')])
        expect(await view()).to.deep.equal({ test_a: 1, test_b: 1 })
        await here.append([event('test_other')])
        await view()
        expect(reads).to.equal(2)
        // Another process's commit (another connection to the same file).
        await there.append([event('test_a')])
        expect(await view()).to.deep.equal({ test_a: 2, test_b: 1 })
        expect(reads).to.equal(3)
        // A rebuild.
        await here.rebuild()
        await view()
        expect(reads).to.equal(4)
      })
    })

    it('asks the database once for views asked together, and never answers one from a question put before its turn', async () => {
      await withTwoProcesses(async (here, there) => {
        const counts = async (sql: import('../../../services/events').Sql) =>
          (await counter().snapshot(sql)) as Record<string, number>
        const view = () => here.viewProjection('counter', counts) as Promise<Record<string, number>>
        await here.append([event('test_a')])
        await view()
        // Every question for the version, its answer held until `hold` lets it go on.
        let asked = 0
        let hold: Promise<void> = Promise.resolve()
        let turn: () => void = () => {}
        const version = here.database.version.bind(here.database)
        here.database.version = async (sql) => {
          asked++
          const answer = await version(sql)
          turn()
          await hold
          return answer
        }
        const together = await Promise.all(Array.from({ length: 10 }, view))
        expect(asked).to.equal(1)
        expect(new Set(together).size).to.equal(1)

        // A question whose turn has come: another process commits meanwhile, and a view asked
        // after that commit is not answered by it.
        let release: () => void = () => {}
        hold = new Promise((resolve) => {
          release = resolve
        })
        const turned = new Promise<void>((resolve) => {
          turn = resolve
        })
        const before = view()
        await turned
        await there.append([event('test_a')])
        hold = Promise.resolve()
        const after = view()
        release()
        // Asked before the commit, answered as of before it; asked after, a question of its own.
        expect((await before).test_a).to.equal(1)
        expect((await after).test_a).to.equal(2)
        // The questions, and the read of the changed view (which asks the version with it).
        expect(asked).to.equal(4)

        // A question that fails before its turn (the database could not be reopened) answers no later view.
        const read = here.database.read.bind(here.database)
        let failing = true
        here.database.read = <T>(fn: (sql: import('../../../services/events').Sql) => Promise<T>): Promise<T> => {
          if (!failing) return read(fn)
          failing = false
          return Promise.reject(new Error('the database could not be reopened'))
        }
        const failed = await view().then(
          () => undefined,
          (error: Error) => error.message,
        )
        expect(failed).to.equal('the database could not be reopened')
        expect((await view()).test_a).to.equal(2)
      })
    })

    it("hands this process's commits to the follower without reading them back, even when woken mid-commit", async () => {
      const store = await EventStore.create(await SqliteDatabase.open({ path: databasePath(tempDir()) }))
      const bus = new BusScope(new Bus(), 'events', 'events')
      const follower = new Follower(store, bus, silentLogger, 3_600_000)
      store.onCommitted((events) => follower.appended(events))
      const read = store.read.bind(store)
      const reads: number[] = []
      store.read = (query) => {
        reads.push(query.afterSeq ?? 0)
        return read(query)
      }
      const seen: number[] = []
      let allSeen: () => void = () => {}
      const all = new Promise<void>((resolve) => {
        allSeen = resolve
      })
      bus.on('events:appended', ({ events }) => {
        seen.push(...events.map((e) => e.seq))
        if (seen.length === 30) allSeen()
      })
      try {
        follower.wake() // takes the head (0) as its cursor: a read of the log happens only on a gap
        for (let batch = 0; batch < 10; batch++) {
          const appending = Promise.all([1, 2, 3].map(() => store.append([event('test_a')])))
          // What the poll timer does: wake while a commit is in flight and nothing is local yet.
          expect(store.committing).to.equal(true)
          follower.wake()
          await appending
        }
        await all
        expect(seen).to.deep.equal(Array.from({ length: 30 }, (_, i) => i + 1))
        expect(reads).to.deep.equal([])
      } finally {
        follower.stop()
        bus.dispose()
        await store.close()
      }
    })
  })

  describe('bad files', () => {
    it('refuses a file that is not SQLite, leaving it untouched', async () => {
      const dataDir = tempDir()
      const garbage = 'this is not a database, it is a shopping list\n'.repeat(100)
      writeFileSync(databasePath(dataDir), garbage)
      const error = await rejection(startManager({ dataDir }))
      expect(error.code).to.equal('SM_ERR_DB_CORRUPT')
      const { readFileSync, readdirSync } = await import('node:fs')
      expect(readFileSync(databasePath(dataDir), 'utf8')).to.equal(garbage)
      expect(readdirSync(dataDir).filter((f) => f.startsWith('server-manager.db'))).to.deep.equal(['server-manager.db'])
    })

    it('refuses a SQLite file of another application', async () => {
      const dataDir = tempDir()
      const db = await open({ filename: databasePath(dataDir), driver: sqlite3.Database })
      await db.exec('CREATE TABLE recipes (name TEXT)')
      await db.close()
      const error = await rejection(startManager({ dataDir }))
      expect(error.code).to.equal('SM_ERR_DB_CORRUPT')
      expect(error.message).to.contain('another application')
    })

    it('refuses a database written by a newer version', async () => {
      const dataDir = tempDir()
      await (await startManager({ dataDir })).stop()
      const db = await open({ filename: databasePath(dataDir), driver: sqlite3.Database })
      await db.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
      await db.close()
      const error = await rejection(startManager({ dataDir }))
      expect(error.code).to.equal('SM_ERR_DB_NEWER_SCHEMA')
    })

    it('reports a data directory that cannot be created', async () => {
      const file = join(tempDir(), 'a-file')
      writeFileSync(file, '')
      const error = await rejection(startManager({ dataDir: join(file, 'data') }))
      expect(error.code).to.equal('SM_ERR_DATA_DIR_UNUSABLE')
    })
  })
})

/**
 * Runs `fn` with two stores on one fresh database, each with the counter projection: what this
 * process and another one (another connection to the same file) see; both closed after.
 */
async function withTwoProcesses(fn: (here: EventStore, there: EventStore) => Promise<void>): Promise<void> {
  const path = databasePath(tempDir())
  const here = await EventStore.create(await SqliteDatabase.open({ path }))
  const there = await EventStore.create(await SqliteDatabase.open({ path }))
  try {
    await here.register(counter())
    await there.register(counter())
    await fn(here, there)
  } finally {
    await here.close()
    await there.close()
  }
}
