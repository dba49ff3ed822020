import { expect } from 'chai'
import {
  type BatchOrder,
  type BatchOutcome,
  Bus,
  type EventMeta,
  type ListenerBatch,
  runInContext,
  SmError,
} from '../../kernel'

declare module '../../kernel/maps' {
  interface CommandMap {
    'test:add': { payload: { a: number; b: number }; reply: number }
    'test:echo_actor': { payload: Record<string, never>; reply: string }
    'test:fails': { payload: Record<string, never>; reply: never }
  }
}

const throwing = (error: Error) => () => {
  throw error
}

describe('kernel/bus', () => {
  describe('events', () => {
    it('delivers an event to every listener in registration order with meta', async () => {
      const bus = new Bus()
      const seen: string[] = []
      const metas: EventMeta[] = []
      bus.on('test:ping', (p) => seen.push(`a${(p as { n: number }).n}`), { owner: 'a' })
      bus.on('test:ping', (p, m) => seen.push(`b${(p as { n: number }).n}`) && metas.push(m), { owner: 'b' })
      const report = await bus.emit('test:ping', { n: 1 })
      expect(seen).to.deep.equal(['a1', 'b1'])
      expect(report.listeners).to.equal(2)
      expect(report.successes.map((s) => s.owner)).to.deep.equal(['a', 'b'])
      expect(report.failures).to.deep.equal([])
      expect(metas).to.deep.equal([{ event: 'test:ping', actor: 'core', seq: undefined }])
    })

    it('returns listener values, awaiting async listeners', async () => {
      const bus = new Bus()
      bus.on('test:x', async () => ({ cancel: true, reason: 'no' }), { owner: 'p' })
      const report = await bus.emit('test:x', {})
      expect(report.successes).to.deep.equal([{ owner: 'p', value: { cancel: true, reason: 'no' } }])
    })

    it('reports a throwing or rejecting listener with attribution and keeps dispatching', async () => {
      const bus = new Bus()
      const ran: string[] = []
      bus.on('test:x', throwing(new Error('boom')), { owner: 'sync-thrower' })
      bus.on('test:x', async () => Promise.reject(new Error('async boom')), { owner: 'rejecter' })
      bus.on('test:x', () => ran.push('last'), { owner: 'fine' })
      const report = await bus.emit('test:x', {})
      expect(ran).to.deep.equal(['last'])
      expect(report.failures.map((f) => [f.owner, f.error.code])).to.deep.equal([
        ['sync-thrower', 'SM_ERR_KERNEL_LISTENER_FAILED'],
        ['rejecter', 'SM_ERR_KERNEL_LISTENER_FAILED'],
      ])
      expect(report.failures[0]?.error.message).to.contain("'sync-thrower' failed while handling 'test:x': boom")
      expect(report.successes.map((s) => s.owner)).to.deep.equal(['fine'])
    })

    it('abandons a hanging listener after its timeout and carries on', async () => {
      const bus = new Bus({ listenerTimeoutMs: 50 })
      bus.on('test:x', () => new Promise(() => {}), { owner: 'hanger' })
      bus.on('test:x', () => 'ok', { owner: 'after' })
      const began = Date.now()
      const report = await bus.emit('test:x', {})
      expect(Date.now() - began).to.be.lessThan(1000)
      expect(report.failures[0]?.owner).to.equal('hanger')
      expect(report.failures[0]?.error.code).to.equal('SM_ERR_KERNEL_LISTENER_TIMEOUT')
      expect(report.successes).to.deep.equal([{ owner: 'after', value: 'ok' }])
    })

    it('honours a per-listener timeout over the bus default', async () => {
      const bus = new Bus({ listenerTimeoutMs: 60_000 })
      bus.on('test:x', () => new Promise(() => {}), { owner: 'hanger', timeoutMs: 20 })
      const report = await bus.emit('test:x', {})
      expect(report.failures[0]?.error.message).to.contain('within 20 ms')
    })

    it('matches wildcard listeners on namespaced events', async () => {
      const bus = new Bus()
      const seen: string[] = []
      bus.on('**', (_p, m) => seen.push(`all:${m.event}`), { owner: 'w' })
      bus.on('test:*', (_p, m) => seen.push(`ns:${m.event}`), { owner: 'n' })
      await bus.emit('test:one', {})
      await bus.emit('other:two', {})
      expect(seen).to.have.members(['all:test:one', 'ns:test:one', 'all:other:two'])
    })

    it('stops delivering after dispose, and dispose is idempotent', async () => {
      const bus = new Bus()
      let calls = 0
      const sub = bus.on('test:x', () => calls++, { owner: 'a' })
      await bus.emit('test:x', {})
      sub.dispose()
      sub.dispose()
      await bus.emit('test:x', {})
      expect(calls).to.equal(1)
      expect(bus.hasListeners('test:x')).to.equal(false)
    })

    it('records facts before dispatch and gives listeners the sequence number', async () => {
      const bus = new Bus()
      const order: string[] = []
      bus.setRecorder({
        accepts: (event) => event.startsWith('test:fact'),
        record: async (event) => {
          order.push(`record ${event}`)
          return 42
        },
      })
      bus.on('test:fact', (_p, m) => order.push(`listen seq=${m.seq}`), { owner: 'l' })
      bus.on('test:other', (_p, m) => order.push(`other seq=${m.seq}`), { owner: 'l' })
      const report = await bus.emit('test:fact', {})
      await bus.emit('test:other', {})
      expect(order).to.deep.equal(['record test:fact', 'listen seq=42', 'other seq=undefined'])
      expect(report.seq).to.equal(42)
    })

    it('runs no listener when recording fails', async () => {
      const bus = new Bus()
      let ran = false
      bus.setRecorder({
        accepts: () => true,
        record: () => Promise.reject(new SmError('SM_ERR_DB_READONLY', { path: 'x' })),
      })
      bus.on(
        'test:fact',
        () => {
          ran = true
        },
        { owner: 'l' },
      )
      const error = await bus.emit('test:fact', {}).catch((e: unknown) => e)
      expect((error as SmError).code).to.equal('SM_ERR_DB_READONLY')
      expect(ran).to.equal(false)
    })
  })

  describe('batches (listeners one call runs together: plugins in one thread)', () => {
    /** A batch that records each call it gets and answers for its members by their names. */
    const recording = (answers: Record<string, unknown>) => {
      const calls: { members: unknown[]; order: BatchOrder }[] = []
      const batch: ListenerBatch = {
        run: async (members, _payload, _meta, order) => {
          calls.push({ members: [...members], order })
          const outcomes: BatchOutcome[] = []
          for (const member of members) {
            const answer = answers[String(member)]
            outcomes.push(answer instanceof Error ? { ok: false, error: answer } : { ok: true, value: answer })
            if (order === 'until-veto' && (answer as { cancel?: boolean })?.cancel) break
          }
          return outcomes
        },
      }
      return { calls, batch }
    }

    it('hands neighbouring members of one batch to one call, in order, and no other listener', async () => {
      const bus = new Bus()
      const { calls, batch } = recording({ a: 1, b: new Error('b broke'), d: 4 })
      const seen: string[] = []
      bus.on('test:x', () => 'a alone', { owner: 'a', batch: { batch, member: 'a' } })
      bus.on('test:x', () => 'b alone', { owner: 'b', batch: { batch, member: 'b' } })
      bus.on('test:x', () => seen.push('c'), { owner: 'c' })
      bus.on('test:x', () => 'd alone', { owner: 'd', batch: { batch, member: 'd' } })
      const report = await bus.emit('test:x', {})
      // d has no neighbour of its batch: it is called as a listener, on its own.
      expect(calls).to.deep.equal([{ members: ['a', 'b'], order: 'in-turn' }])
      expect(seen).to.deep.equal(['c'])
      expect(report.successes.map(({ owner, value }) => [owner, value])).to.deep.equal([
        ['a', 1],
        ['c', 1],
        ['d', 'd alone'],
      ])
      expect(report.failures.map(({ owner, error }) => [owner, error.message])).to.deep.equal([
        [
          'b',
          "'b' failed while handling 'test:x': b broke. Other listeners and the action carried on; fix the listener.",
        ],
      ])
    })

    it('ends the round at a veto inside a batch: no later listener is called', async () => {
      const bus = new Bus()
      const { calls, batch } = recording({ a: { cancel: true, reason: 'no' }, b: 2 })
      let later = false
      bus.on('test:x', () => undefined, { owner: 'a', batch: { batch, member: 'a' } })
      bus.on('test:x', () => undefined, { owner: 'b', batch: { batch, member: 'b' } })
      bus.on(
        'test:x',
        () => {
          later = true
        },
        { owner: 'c' },
      )
      const report = await bus.emit('test:x', {}, { untilVeto: true })
      expect(calls).to.deep.equal([{ members: ['a', 'b'], order: 'until-veto' }])
      expect(later).to.equal(false)
      expect(report.successes[0]).to.deep.equal({ owner: 'a', value: { cancel: true, reason: 'no' } })
    })

    it('runs a batch together in a round side by side, beside the other listeners', async () => {
      const bus = new Bus()
      const { calls, batch } = recording({ a: 1, b: 2 })
      let release: () => void = () => {}
      const slow = new Promise<void>((resolve) => {
        release = resolve
      })
      bus.on('test:x', () => slow, { owner: 'z' })
      bus.on('test:x', () => undefined, { owner: 'a', batch: { batch, member: 'a' } })
      bus.on('test:x', () => undefined, { owner: 'b', batch: { batch, member: 'b' } })
      const emitted = bus.emit('test:x', {}, { parallel: true })
      // The batch was called while the first listener still waits.
      expect(calls).to.deep.equal([{ members: ['a', 'b'], order: 'together' }])
      release()
      const report = await emitted
      expect(report.successes.map(({ owner }) => owner)).to.deep.equal(['z', 'a', 'b'])
    })

    it('fails every member of a batch whose call fails, each by its owner', async () => {
      const bus = new Bus()
      const batch: ListenerBatch = { run: () => Promise.reject(new Error('the thread ended')) }
      bus.on('test:x', () => undefined, { owner: 'a', batch: { batch, member: 'a' } })
      bus.on('test:x', () => undefined, { owner: 'b', batch: { batch, member: 'b' } })
      const report = await bus.emit('test:x', {})
      expect(report.failures.map(({ owner }) => owner)).to.deep.equal(['a', 'b'])
    })
  })

  describe('commands', () => {
    it('routes a request to its one handler and returns the reply', async () => {
      const bus = new Bus()
      bus.handle('test:add', ({ a, b }) => a + b, { owner: 'math' })
      expect(await bus.request('test:add', { a: 2, b: 3 })).to.equal(5)
      expect(bus.hasHandler('test:add')).to.equal(true)
    })

    it('refuses a second handler for one command, naming both owners', () => {
      const bus = new Bus()
      bus.handle('test:add', () => 1, { owner: 'first' })
      expect(() => bus.handle('test:add', () => 2, { owner: 'second' })).to.throw(
        SmError,
        "'second' tried to handle the command 'test:add', which 'first' already handles",
      )
    })

    it('accepts a new handler once the old one is disposed', async () => {
      const bus = new Bus()
      bus.handle('test:add', () => 1, { owner: 'first' }).dispose()
      bus.handle('test:add', () => 2, { owner: 'second' })
      expect(await bus.request('test:add', { a: 0, b: 0 })).to.equal(2)
    })

    it('rejects a request nobody handles with a coded error', async () => {
      const error = await new Bus().request('test:add', { a: 1, b: 1 }).catch((e: unknown) => e)
      expect((error as SmError).code).to.equal('SM_ERR_KERNEL_NO_HANDLER')
    })

    it('wraps a non-coded handler failure as SM_ERR_INTERNAL and keeps coded ones', async () => {
      const plainBus = new Bus()
      plainBus.handle('test:fails', throwing(new TypeError('bad')), { owner: 's' })
      const plain = await plainBus.request('test:fails', {}).catch((e: unknown) => e)
      expect((plain as SmError).code).to.equal('SM_ERR_INTERNAL')
      expect((plain as SmError).cause).to.be.instanceOf(TypeError)

      const codedBus = new Bus()
      codedBus.handle('test:fails', async () => Promise.reject(new SmError('SM_ERR_DB_BUSY', { path: 'p', ms: 1 })), {
        owner: 's',
      })
      const coded = await codedBus.request('test:fails', {}).catch((e: unknown) => e)
      expect((coded as SmError).code).to.equal('SM_ERR_DB_BUSY')
    })

    it('carries the actor into the handler and everything it emits', async () => {
      const bus = new Bus()
      const seen: string[] = []
      bus.on('test:fact', (_p, m) => seen.push(m.actor), { owner: 'l' })
      bus.handle(
        'test:echo_actor',
        async (_p, meta) => {
          await bus.emit('test:fact', {})
          return meta.actor
        },
        { owner: 's' },
      )
      expect(await bus.request('test:echo_actor', {}, { actor: 'cli:alice' })).to.equal('cli:alice')
      expect(await runInContext({ actor: 'plugin:x' }, () => bus.request('test:echo_actor', {}))).to.equal('plugin:x')
      expect(await bus.request('test:echo_actor', {})).to.equal('core')
      expect(seen).to.deep.equal(['cli:alice', 'plugin:x', 'core'])
    })

    it('times a request out when the caller asks for it', async () => {
      const bus = new Bus()
      bus.handle('test:fails', () => new Promise<never>(() => {}), { owner: 's' })
      const error = await bus.request('test:fails', {}, { timeoutMs: 30 }).catch((e: unknown) => e)
      expect((error as SmError).code).to.equal('SM_ERR_KERNEL_REQUEST_TIMEOUT')
    })
  })
})
