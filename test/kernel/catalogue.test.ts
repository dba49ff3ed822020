import { expect } from 'chai'
import { z } from 'zod'
import {
  BusScope,
  command,
  createKernel,
  defineActions,
  defineCommands,
  defineErrors,
  defineEvents,
  defineSettings,
  type Kernel,
  type Service,
  wholeNumber,
} from '../../kernel'
import { answer } from '../../services/bridge/answer'
import { startManager } from '../helpers/manager'
import { rejection } from '../helpers/rejection'

// What a service `a` declares: a command, an event, an action (its hooks), a code and a setting.
const aCommands = defineCommands('a', { 'a:x': command(z.object({ n: z.number() }), z.object({ n: z.number() })) })
const aEvents = defineEvents('a', { 'a:happened': z.object({}) })
const aActions = defineActions('a', {
  a_thing: { payload: z.object({}), identity: [], summary: 'a does a thing' },
})
const aErrors = defineErrors('a', {
  SM_ERR_A_TEST: { status: 409, exit: 1, when: 'a test says so', message: () => 'a test says so.' },
})
const aSettings = defineSettings('a', { 'a.limit': { default: 3, summary: 'a test limit', rule: wholeNumber(1, 9) } })

function aService(): Service {
  return {
    name: 'a',
    declares: [aCommands, aEvents, aActions, aErrors, aSettings],
    start({ bus }) {
      bus.handle('a:x' as never, ((payload: unknown) => payload) as never)
    },
  }
}

/** A scope in namespace `a` on a kernel's bus, as the service `a` has. */
const scopeOf = (kernel: Kernel) => new BusScope(kernel.bus, 'a', 'a')

describe('kernel/catalogue: what a service declares belongs to its kernel (issue 33, item 2)', () => {
  it('records a service’s declarations when it is added, before anything starts', () => {
    const kernel = createKernel().use(aService())
    const { catalogue } = kernel
    expect(catalogue.commands().map((c) => c.name)).to.include('a:x')
    expect(catalogue.events().map((e) => e.name)).to.include.members(['a:happened', 'kernel:ready'])
    expect(catalogue.actions().map((a) => [a.name, a.owner])).to.deep.equal([['a_thing', 'a']])
    expect(catalogue.errors().map((e) => e.code)).to.include('SM_ERR_A_TEST')
    expect(catalogue.settings().map((s) => s.key)).to.deep.equal(['a.limit'])
  })

  it('refuses what a service hands it that no define… function made', () => {
    const bogus: Service = { name: 'b', declares: [{ 'b:y': command(z.object({}), z.object({})) }], start() {} }
    expect(() => createKernel().use(bogus)).to.throw(/declares something no define/)
  })

  it('keeps two kernels of one process apart: the one without the service refuses its command, event, hook and setting', async () => {
    const withA = createKernel().use(aService())
    const without = createKernel()

    // The command: checked at a boundary (the bridge's answer) against each kernel's own catalogue.
    await withA.start()
    await without.start()
    try {
      const served = await answer(scopeOf(withA), 'a:x', { n: 2, extra: true }, 'cli:tester')
      expect(served).to.deep.equal({ ok: true, value: { n: 2 } })
      const refused = await answer(scopeOf(without), 'a:x', { n: 2 }, 'cli:tester')
      expect(refused.ok).to.equal(false)
      if (!refused.ok) expect(refused.error.code).to.equal('SM_ERR_BUS_UNDECLARED')
      expect(without.catalogue.isDeclaredCommand('a:x')).to.equal(false)

      // The action: `a` may emit its hooks where it declared them; elsewhere they are nobody's.
      await scopeOf(withA).emit('before_a_thing' as never, {} as never)
      const hook = await rejection(scopeOf(without).emit('before_a_thing' as never, {} as never))
      expect(hook.code).to.equal('SM_ERR_BUS_UNDECLARED')
      // A plugin may not emit `a`'s hook where `a` declared it: it is `a`'s.
      const plugin = new BusScope(withA.bus, 'plugins', 'plugins').child('plugin:spoof')
      expect((await rejection(plugin.emit('after_a_thing' as never, {} as never))).code).to.equal(
        'SM_ERR_BUS_NOT_OWNER',
      )
      expect(without.catalogue.actions()).to.deep.equal([])

      // The event: declared, its payload is checked; undeclared, it is anyone's.
      expect(() => withA.catalogue.checkEvent('a:happened', 'not an object')).to.throw(/a:happened/)
      expect(without.catalogue.checkEvent('a:happened', 'not an object')).to.equal('not an object')
    } finally {
      await withA.stop()
      await without.stop()
    }
  })

  it('gives a setting to the kernel whose service declared it, and to no other', async () => {
    const withA = await startManager({ services: [aService()] })
    const without = await startManager()
    try {
      expect(await withA.bus.request('settings:get', { key: 'a.limit' })).to.include({ found: true, value: 3 })
      const unknown = await rejection(without.bus.request('settings:get', { key: 'a.limit' }))
      expect(unknown.code).to.equal('SM_ERR_SETTINGS_UNKNOWN_KEY')
      expect(without.catalogue.settings().map((s) => s.key)).not.to.include('a.limit')
      // Its hooks reach plugins only where it is declared (the plugins service binds from its kernel's actions).
      expect(withA.catalogue.actionOwner('a_thing')).to.equal('a')
      expect(without.catalogue.actionOwner('a_thing')).to.equal(undefined)
    } finally {
      await withA.stop()
      await without.stop()
    }
  })
})
