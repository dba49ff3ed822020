import { expect } from 'chai'
import { z } from 'zod'
import { Bus, BusScope, Catalogue, defineActions, performAction, SmError } from '../../kernel'
import { rejection } from '../helpers/rejection'

declare module '../../kernel/maps' {
  interface EventMap {
    before_test_action: { readonly target: string }
    after_test_action: { readonly target: string; readonly result: import('../../kernel').ActionResult }
  }
}

// The test's own action, declared as a service declares its actions: only its owner performs it.
const testActions = defineActions('service', {
  test_action: { payload: z.object({ target: z.string() }), identity: ['target'], summary: 'a test acts' },
})
/** The catalogue of a kernel whose service 'service' declares test_action. */
const catalogue = new Catalogue()
catalogue.add([testActions], 'service')

function setup() {
  const bus = new Bus({ catalogue })
  const afters: unknown[] = []
  bus.on('after_test_action', (payload) => afters.push(payload), { owner: 'observer' })
  return { bus, scope: new BusScope(bus, 'service', 'service'), afters }
}

describe('kernel/action: the before/after hook protocol', () => {
  it('performs the action and reports success with its fields and message', async () => {
    const { scope, afters } = setup()
    const outcome = await performAction(scope, {
      before: 'before_test_action',
      after: 'after_test_action',
      payload: { target: 's1' },
      perform: async () => ({ pid: 42 }),
      message: () => 'started',
    })
    expect(outcome.status).to.equal('success')
    expect(afters).to.deep.equal([{ target: 's1', result: { pid: 42, status: 'success', message: 'started' } }])
  })

  it('does not perform a vetoed action and still fires after_* as cancelled', async () => {
    const { bus, scope, afters } = setup()
    bus.on('before_test_action', () => undefined, { owner: 'plugin:indifferent' })
    bus.on('before_test_action', async () => ({ cancel: true, reason: 'maintenance' }), { owner: 'plugin:guard' })
    let performed = false
    const outcome = await performAction(scope, {
      before: 'before_test_action',
      after: 'after_test_action',
      payload: { target: 's1' },
      perform: async () => {
        performed = true
      },
    })
    expect(performed).to.equal(false)
    expect(outcome).to.include({ status: 'cancelled', by: 'plugin:guard', reason: 'maintenance' })
    expect(afters).to.deep.equal([
      { target: 's1', result: { status: 'cancelled', message: 'Cancelled by plugin:guard: maintenance' } },
    ])
  })

  it('fires after_* with the error when the action throws, and hands the error back', async () => {
    const { scope, afters } = setup()
    const outcome = await performAction(scope, {
      before: 'before_test_action',
      after: 'after_test_action',
      payload: { target: 's1' },
      perform: () => Promise.reject(new SmError('SM_ERR_DB_BUSY', { path: 'db', ms: 5 })),
    })
    expect(outcome.status).to.equal('error')
    expect((afters[0] as { result: { status: string; code: string } }).result).to.include({
      status: 'error',
      code: 'SM_ERR_DB_BUSY',
    })
  })

  it('hands listeners a frozen copy: a before_* hook cannot transform the action', async () => {
    const { bus, scope, afters } = setup()
    bus.on(
      'before_test_action',
      (payload) => {
        ;(payload as { target: string }).target = 'hijacked'
      },
      { owner: 'plugin:sneaky' },
    )
    const original = { target: 's1' }
    const outcome = await performAction(scope, {
      before: 'before_test_action',
      after: 'after_test_action',
      payload: original,
      perform: async () => 'ok',
    })
    expect(outcome.status).to.equal('success')
    expect(original).to.deep.equal({ target: 's1' })
    expect((afters[0] as { target: string }).target).to.equal('s1')
  })

  it('carries on when a before_* hook throws or hangs', async () => {
    const bus = new Bus({ listenerTimeoutMs: 30, catalogue })
    bus.on(
      'before_test_action',
      () => {
        throw new Error('hook bug')
      },
      { owner: 'plugin:buggy' },
    )
    bus.on('before_test_action', () => new Promise(() => {}), { owner: 'plugin:stuck' })
    const outcome = await performAction(new BusScope(bus, 'service', 'service'), {
      before: 'before_test_action',
      after: 'after_test_action',
      payload: { target: 's1' },
      perform: async () => 'done',
    })
    expect(outcome.status).to.equal('success')
  })

  it('answers work done but not recorded (a full disk) as a success saying so; where the fact is the work, rejects', async () => {
    const { bus, scope, afters } = setup()
    const full = new SmError('SM_ERR_DB_FULL', { path: '/data/server-manager.db' })
    bus.setRecorder({ accepts: (type) => type.startsWith('after_'), record: () => Promise.reject(full) })
    const spec = {
      before: 'before_test_action',
      after: 'after_test_action',
      payload: { target: 's1' },
      perform: async () => 'done',
    } as const
    const done = await performAction(scope, spec)
    expect(done).to.include({ status: 'success', unrecorded: full.message })
    let rejected: unknown
    await performAction(scope, { ...spec, factIsTheWork: true }).catch((error: unknown) => {
      rejected = error
    })
    expect(rejected).to.equal(full)
    // Nothing recorded, so no listener heard of either.
    expect(afters).to.deep.equal([])
  })

  it("refuses a payload that does not fit the action's schema with SM_ERR_BUS_BAD_PAYLOAD, in an unchecked build too, before any hook or work", async () => {
    const bus = new Bus({ checkMessages: false, catalogue })
    const scope = new BusScope(bus, 'service', 'service')
    const seen: unknown[] = []
    bus.on('before_test_action', (payload) => seen.push(payload), { owner: 'plugin:watcher' })
    bus.on('after_test_action', (payload) => seen.push(payload), { owner: 'plugin:watcher' })
    let performed = false
    // What a service would make of a caller's input it did not read closely enough.
    const refused = await rejection(
      performAction(scope, {
        before: 'before_test_action',
        after: 'after_test_action',
        payload: { target: 5 } as never,
        perform: async () => {
          performed = true
        },
      }),
    )
    expect(refused.code).to.equal('SM_ERR_BUS_BAD_PAYLOAD')
    expect(refused.status).to.equal(400)
    expect(refused.message).to.contain('before_test_action').and.to.contain('target')
    expect(seen).to.deep.equal([])
    expect(performed).to.equal(false)
  })

  it('reads an after_* payload by the action schema and its result', () => {
    expect(
      catalogue.checkEvent('after_test_action', { target: 's1', result: { status: 'success', pid: 1 } }),
    ).to.deep.equal({
      target: 's1',
      result: { status: 'success', pid: 1 },
    })
    for (const bad of [
      { target: 's1' },
      { target: 's1', result: { status: 'done' } },
      { result: { status: 'success' } },
    ])
      expect(() => catalogue.checkEvent('after_test_action', bad), JSON.stringify(bad))
        .to.throw(SmError)
        .with.property('code', 'SM_ERR_BUS_BAD_PAYLOAD')
  })
})
