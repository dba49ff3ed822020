import { expect } from 'chai'
import { createKernel, createToken, type Service, SmError } from '../../kernel'
import { rejection } from '../helpers/rejection'

const service = (name: string, log: string[], extra: Partial<Service> = {}): Service => ({
  name,
  start: () => {
    log.push(`start ${name}`)
  },
  stop: () => {
    log.push(`stop ${name}`)
  },
  ...extra,
})

describe('kernel/lifecycle', () => {
  it('starts services in dependency order and stops them in reverse', async () => {
    const log: string[] = []
    const kernel = createKernel().use(
      service('web', log, { dependsOn: ['settings'] }),
      service('settings', log, { dependsOn: ['events'] }),
      service('events', log),
      service('cli', log),
    )
    const boot = await kernel.start()
    expect(boot.map((r) => [r.service, r.ok])).to.deep.equal([
      ['events', true],
      ['settings', true],
      ['web', true],
      ['cli', true],
    ])
    expect(kernel.state).to.equal('running')
    await kernel.stop()
    expect(log).to.deep.equal([
      'start events',
      'start settings',
      'start web',
      'start cli',
      'stop cli',
      'stop web',
      'stop settings',
      'stop events',
    ])
    expect(kernel.state).to.equal('stopped')
    expect(await kernel.stop()).to.deep.equal([])
  })

  it('starts a service after the ones it names in `after` when they run, and without them when they do not', async () => {
    const log: string[] = []
    const withWeb = createKernel().use(service('plugins', log, { after: ['web'] }), service('web', log))
    expect((await withWeb.start()).map((r) => r.service)).to.deep.equal(['web', 'plugins'])
    await withWeb.stop()
    const alone = createKernel().use(service('plugins', log, { after: ['web'] }))
    expect((await alone.start()).map((r) => r.service)).to.deep.equal(['plugins'])
    await alone.stop()
  })

  it('emits kernel:ready after every service is ready, and kernel:stopping before any stops', async () => {
    const log: string[] = []
    const watcher: Service = {
      name: 'watcher',
      start({ bus }) {
        bus.on('kernel:ready', ({ services }) => {
          log.push(`ready event: ${services.join(',')}`)
        })
        bus.on('kernel:stopping', () => {
          log.push('stopping event')
        })
      },
      ready: () => {
        log.push('ready watcher')
      },
      stop: () => {
        log.push('stop watcher')
      },
    }
    const kernel = createKernel().use(watcher, service('other', log, { ready: () => void log.push('ready other') }))
    await kernel.start()
    await kernel.stop()
    expect(log).to.deep.equal([
      'start other',
      'ready watcher',
      'ready other',
      'ready event: watcher,other',
      'stopping event',
      'stop other',
      'stop watcher',
    ])
  })

  it('refuses cycles and missing dependencies with coded errors', async () => {
    const cyclic = createKernel().use(service('a', [], { dependsOn: ['b'] }), service('b', [], { dependsOn: ['a'] }))
    const cycle = await rejection(cyclic.start())
    expect(cycle.code).to.equal('SM_ERR_KERNEL_SERVICE_CYCLE')
    expect(cycle.message).to.contain('a → b → a')
    const missing = await rejection(
      createKernel()
        .use(service('a', [], { dependsOn: ['ghost'] }))
        .start(),
    )
    expect(missing.code).to.equal('SM_ERR_KERNEL_SERVICE_MISSING')
    expect(() => createKernel().use(service('a', []), service('a', []))).to.throw(SmError, "'a' is already registered")
  })

  it('stops the services already started when one fails to start, and releases its registrations', async () => {
    const log: string[] = []
    const kernel = createKernel().use(
      service('first', log),
      service('broken', log, {
        start: ({ bus }) => {
          bus.on('test:x', () => undefined)
          throw new Error('no disk')
        },
      }),
      service('never', log),
    )
    const error = await rejection(kernel.start())
    expect(error.code).to.equal('SM_ERR_KERNEL_SERVICE_FAILED')
    expect(error.message).to.contain("The service 'broken' failed to start: no disk.")
    expect(log).to.deep.equal(['start first', 'stop first'])
    expect(kernel.bus.hasListeners('test:x')).to.equal(false)
    expect(kernel.state).to.equal('stopped')
  })

  it('times out a service that hangs in start, and one that hangs in stop', async () => {
    const hangs = () => new Promise<void>(() => {})
    const slowStart = createKernel({ serviceTimeoutMs: 30 }).use(service('slow', [], { start: hangs }))
    const error = await rejection(slowStart.start())
    expect(error.message).to.contain("'slow' failed to start: timed out after 30 ms")

    const slowStop = createKernel({ serviceTimeoutMs: 30 }).use(service('slow', [], { stop: hangs }))
    await slowStop.start()
    const [report] = await slowStop.stop()
    expect(report?.ok).to.equal(false)
    expect(report?.error?.message).to.contain('failed to stop: timed out after 30 ms')
  })

  it("gives a service that declares its own start timeout that long instead of the kernel's", async () => {
    // Past the kernel's 30 ms (a lower bound only): its own 10 minutes hold.
    const long = () => new Promise<void>((resolve) => setTimeout(resolve, 60))
    const kernel = createKernel({ serviceTimeoutMs: 30 }).use(
      service('long', [], { start: long, startTimeoutMs: 600_000 }),
    )
    await kernel.start()
    expect(kernel.state).to.equal('running')
    await kernel.stop()
  })

  it('releases every listener and handler a service registered when it stops', async () => {
    const kernel = createKernel().use({
      name: 'chatty',
      start: ({ bus }) => {
        bus.on('test:a', () => undefined)
        bus.on('**', () => undefined)
        bus.handle('test:cmd' as never, (() => 1) as never)
      },
    })
    await kernel.start()
    expect(kernel.bus.hasListeners('test:a')).to.equal(true)
    expect(kernel.bus.hasHandler('test:cmd')).to.equal(true)
    await kernel.stop()
    expect(kernel.bus.hasListeners('test:a')).to.equal(false)
    expect(kernel.bus.hasHandler('test:cmd')).to.equal(false)
  })

  it('refuses to start twice', async () => {
    const kernel = createKernel()
    await kernel.start()
    const error = await rejection(kernel.start())
    expect(error.code).to.equal('SM_ERR_KERNEL_NOT_RUNNING')
    await kernel.stop()
  })

  it('gives each service a child logger and the shared config', async () => {
    const names: string[] = []
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error() {},
      child: (name: string) => {
        names.push(name)
        return logger
      },
    }
    let seenDir = ''
    const kernel = createKernel({ logger, config: { dataDir: '/data' } }).use({
      name: 'svc',
      start: ({ config }) => {
        seenDir = config.dataDir
      },
    })
    await kernel.start()
    await kernel.stop()
    expect(names).to.deep.equal(['svc'])
    expect(seenDir).to.equal('/data')
  })
})

describe('kernel/registry', () => {
  it('resolves what was provided under an explicit token and refuses the rest', () => {
    const kernel = createKernel()
    const Clock = createToken<{ now(): number }>('test:clock')
    kernel.registry.provide(Clock, { now: () => 7 })
    expect(kernel.registry.resolve(Clock).now()).to.equal(7)
    const Missing = createToken<string>('test:missing')
    expect(kernel.registry.has(Missing)).to.equal(false)
    expect(() => kernel.registry.resolve(Missing)).to.throw(SmError, "Nothing is registered for 'test:missing'")
  })

  it('keeps two kernels apart', () => {
    const Name = createToken<string>('test:name')
    const a = createKernel()
    const b = createKernel()
    a.registry.provide(Name, 'a')
    expect(b.registry.has(Name)).to.equal(false)
  })
})
