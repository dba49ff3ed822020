import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect } from 'chai'
import { startOrder } from '../kernel/start-order'
import { bridgeService, builtinServices, logService, type RootLogger, webService } from '../manager'
import { exited } from './helpers/game'
import { cliOk, run, waitForLine } from './helpers/run'
import { tempDir } from './helpers/temp-dir'

describe('embedding the kernel in another program', () => {
  it('starts the built-in services in one order whatever order they are registered in', () => {
    const services = [
      logService({ close: async () => {} } as unknown as RootLogger),
      bridgeService({ version: '0' }),
      webService({ version: '0' }),
      ...builtinServices(),
    ]
    const forward = startOrder(services).map((s) => s.name)
    const backward = startOrder([...services].reverse()).map((s) => s.name)
    for (const order of [forward, backward]) {
      // The lock first (a second manager is refused before anything writes), the log file's
      // owner before everything that logs, web before the plugins that take routes from it.
      expect(order.indexOf('bridge')).to.be.below(order.indexOf('events'))
      expect(order.indexOf('log')).to.be.below(order.indexOf('events'))
      expect(order.indexOf('web')).to.be.below(order.indexOf('plugins'))
      expect(order.indexOf('servers')).to.be.below(order.indexOf('plugins'))
    }
  })

  it('creates a manager, adds its own service, talks to settings, stops, and leaves no open handle', async () => {
    const result = await run(process.execPath, [join(__dirname, 'programs', 'embedder.js'), tempDir()], {
      timeoutMs: 15_000,
    })
    expect(result.signal, 'the process had to be killed: something stayed open').to.equal(null)
    expect(result.code, result.stderr).to.equal(0)
    expect(result.stdout.split('\n')).to.include.members([
      'greeter saw custom.greeting',
      'ahoy, embedder',
      'left open: []',
    ])
  })

  it('serves the CLI over the bridge from createManager({ daemon: true }), with no CLI process running it', async () => {
    const dataDir = tempDir()
    const program = spawn(process.execPath, [join(__dirname, 'programs', 'daemon-embedder.js'), dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    program.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk
    })
    const ended = exited(program)
    try {
      const ready = await waitForLine(program, /^ready \d+$/)
      expect(await cliOk(dataDir, ['status'])).to.match(new RegExp(`PID +${program.pid}\\n`))
      await cliOk(dataDir, ['web', 'stop'])
      expect(await ended, stderr).to.equal(0)
      expect(ready).to.equal(`ready ${program.pid}`)
    } finally {
      program.kill('SIGKILL')
    }
  })
})
