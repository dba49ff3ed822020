import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { expect } from 'chai'
import { SmError } from '../../../kernel/errors'
import { BridgeClient } from '../../../services/bridge/client'
import { NatsBridgeClient } from '../../../services/bridge/nats-client'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { type Broker, CLIENT_PERMISSIONS, MANAGER_PERMISSIONS, startBroker } from '../../helpers/nats'
import { freePort } from '../../helpers/ports'
import { cliStart, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const AGENT = {
  publish: ['sm.agent.node2.>'],
  subscribe: ['sm.agent.node2.>', '_INBOX.agent.node2.>'],
  allowResponses: true,
}

/** Sets the manager's broker credentials on `dir` (nats.user, nats.password). */
async function managerCredentials(dir: string, broker: Broker): Promise<void> {
  const { user, password } = broker.users.manager as { user: string; password: string }
  await cliInOk(dir, ['setting', 'set', 'nats.user', user])
  await cliInOk(dir, ['setting', 'set', 'nats.password', password])
}

const clientOf = (broker: Broker, name: string, inboxPrefix?: string) =>
  NatsBridgeClient.connect({ url: broker.url, ...broker.users[name], prefix: 'sm' }, { inboxPrefix })

async function failure(promise: Promise<unknown>): Promise<SmError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof SmError) return error
    throw error
  }
  throw new Error('it did not fail')
}

describe('services/bridge: the bus over NATS', function () {
  this.timeout(120_000)

  it('a manager started with --nats answers over the broker as over its socket: replies, coded errors, events', async () => {
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, cli: CLIENT_PERMISSIONS })
    const dir = tempDir()
    await managerCredentials(dir, broker)
    const manager = await spawnManager(dir, ['--nats', broker.url])
    try {
      expect(await waitForLine(manager, /^NATS:/)).to.equal(`NATS: on the broker at ${broker.url} (subjects sm.>)`)
      const remote = await clientOf(broker, 'cli')
      const local = (await BridgeClient.connect(dir)) as BridgeClient
      try {
        const status = (await remote.request('manager:status', {}, 'cli:tester')) as { pid: number }
        expect(status.pid).to.equal(manager.pid)
        // The same refusals as the socket: an undeclared command, a payload that does not fit.
        for (const [command, payload] of [
          ['nope:nothing', {}],
          ['servers:begin', { action: 'bogus' }],
        ] as const) {
          const overNats = await failure(remote.request(command, payload, 'cli:tester'))
          const overSocket = await failure(local.request(command, payload, 'cli:tester'))
          expect(overNats.toWire(), command).to.deep.equal(overSocket.toWire())
          expect(overNats.status, command).to.be.within(400, 499)
        }
        // Events: what the manager emits reaches a subscriber on the broker, with who did it.
        const seen = new Promise<{ payload: unknown; actor: string }>((resolve) => {
          remote.on('after_setting_update', (payload, meta) => resolve({ payload, actor: meta.actor }))
        })
        await remote.flush()
        await remote.request('settings:set', { key: 'custom.greeting', value: 'hi' }, 'cli:tester')
        const event = await seen
        expect(event.actor).to.equal('cli:tester')
        expect(event.payload).to.include({ key: 'custom.greeting', value: 'hi' })
        expect((await cliInOk(dir, ['setting', 'get', 'custom.greeting'])).trim()).to.equal('hi')
      } finally {
        local.close()
        await remote.close()
      }
    } finally {
      await stop(manager)
    }
  })

  it('refuses what is not a request (not JSON, a forged actor, a reply subject that is not an inbox), keeps secrets home, says when a reply is too large; nobody answering fails at once', async () => {
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, cli: CLIENT_PERMISSIONS })
    const dir = tempDir()
    await managerCredentials(dir, broker)
    const manager = await spawnManager(dir, ['--nats', broker.url])
    const raw = await connect({ servers: broker.url, user: 'cli', pass: 'cli-password', name: 'raw' })
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const ask = async (body: string) =>
        (await raw.request('sm.req.manager.status', body, { timeout: 60_000 })).json<{
          ok: boolean
          error?: { code: string; status: number }
        }>()
      for (const body of [
        'not json',
        '[1]',
        JSON.stringify({ payload: {}, actor: 'http:admin' }),
        JSON.stringify({ payload: {}, actor: 'cli:\u001b[2Jroot' }),
      ]) {
        const reply = await ask(body)
        expect(reply.ok, body).to.equal(false)
        expect(reply.error?.code, body).to.equal('SM_ERR_BRIDGE_BAD_MESSAGE')
      }
      expect((await ask(JSON.stringify({ payload: {}, actor: 'cli:tester' }))).ok).to.equal(true)

      // A reply subject that is not an inbox is not answered: the manager never publishes where a requester says.
      const injected: string[] = []
      const trap = raw.subscribe('sm.evt.injected', { callback: (_e, m) => void injected.push(m.string()) })
      raw.publish('sm.req.manager.status', JSON.stringify({ payload: {}, actor: 'cli:tester' }), {
        reply: 'sm.evt.injected',
      })
      for (let i = 0; i < 3; i++)
        expect((await ask(JSON.stringify({ payload: {}, actor: 'cli:tester' }))).ok).to.equal(true)
      await raw.flush()
      expect(injected).to.deep.equal([])
      trap.unsubscribe()

      // Secrets stay here: not in events on the broker, not in a setting read over it, and the vault is not served.
      const request = async (command: string, payload: unknown) =>
        (
          await raw.request(`sm.req.${command.replace(':', '.')}`, JSON.stringify({ payload, actor: 'cli:tester' }), {
            timeout: 60_000,
          })
        ).json<{
          ok: boolean
          value?: { value?: unknown }
          error?: { code: string; params?: Record<string, unknown> }
        }>()
      const changes: unknown[] = []
      const watch = raw.subscribe('sm.evt._.after_setting_update', { callback: (_e, m) => void changes.push(m.json()) })
      await raw.flush()
      expect((await request('settings:set', { key: 'custom.api_token', value: 'hunter2' })).ok).to.equal(true)
      expect((await request('settings:get', { key: 'custom.api_token' })).value?.value).to.equal('[redacted]')
      expect((await request('events:vault_get', { name: 'auth.jwt_key' })).error?.code).to.equal(
        'SM_ERR_BRIDGE_BAD_MESSAGE',
      )
      // Nor a command that reads a path of this machine (the log and its vault, copied into a
      // server's directory and read back): those are for this machine's socket.
      for (const [command, payload] of [
        ['files:upload', { name: 'any', path: 'x', from: join(dir, 'server-manager.db') }],
        ['servers:import', { name: 'any', file: join(dir, 'server-manager.db') }],
      ] as const) {
        const refused = (await request(command, payload)).error
        expect(refused?.code, command).to.equal('SM_ERR_BRIDGE_BAD_MESSAGE')
        expect(JSON.stringify(refused?.params)).to.contain("answered only on this machine's socket")
      }
      await raw.flush()
      expect(JSON.stringify(changes)).to.not.contain('hunter2')
      watch.unsubscribe()

      // A reply too large for the broker is a coded error at once, not a wait for a timeout.
      const big = 'x'.repeat(700_000)
      for (const key of ['custom.big1', 'custom.big2'])
        expect((await request('settings:set', { key, value: big })).ok).to.equal(true)
      const tooLarge = await request('settings:get_all', {})
      expect(tooLarge.error?.code).to.equal('SM_ERR_NATS_REPLY_TOO_LARGE')
    } finally {
      await stop(manager)
    }
    // No manager on the broker now: a request fails at once, naming what to do.
    const remote = await clientOf(broker, 'cli')
    try {
      const error = await failure(remote.request('manager:status', {}, 'cli:tester'))
      expect(error.code).to.equal('SM_ERR_NATS_NO_MANAGER')
      expect(error.message).to.contain("'sm.req.manager.status'")
    } finally {
      await remote.close()
      await raw.close()
    }
  })

  it("a connection may use only its own subjects: an agent's credentials cannot reach the manager's commands", async () => {
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node2: AGENT })
    const dir = tempDir()
    await managerCredentials(dir, broker)
    const manager = await spawnManager(dir, ['--nats', broker.url])
    const agent = await clientOf(broker, 'node2', '_INBOX.agent.node2')
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const error = await failure(agent.request('settings:set', { key: 'custom.x', value: 1 }, 'cli:intruder'))
      expect(error.code).to.equal('SM_ERR_NATS_REFUSED')
      expect(error.params).to.deep.include({ operation: 'publish', subject: 'sm.req.settings.set' })
      expect((await cliIn(dir, ['setting', 'get', 'custom.x'])).stdout).to.not.contain('1')
      // Nor follow its events: the refusal is said (and the connection ends), not swallowed.
      const said = new Promise<string | undefined>((resolve) => agent.onClose(resolve))
      agent.on('settings:*', () => {})
      expect(await said).to.equal(
        `The NATS broker refused to subscribe to 'sm.evt.settings.*': these credentials do not allow it. Use credentials with that permission (docs/architecture.md, "The bus over NATS, and host agents on other machines").`,
      )
    } finally {
      await agent.close()
      await stop(manager)
    }
  })

  it('a broker that is not there does not stop the manager: it says so, serves its socket, and joins when the broker comes', async () => {
    const port = await freePort()
    const dir = tempDir()
    const url = `nats://127.0.0.1:${port}`
    // The broker's users are named after their passwords (test/helpers/nats.ts): set before it exists.
    await cliInOk(dir, ['setting', 'set', 'nats.user', 'manager'])
    await cliInOk(dir, ['setting', 'set', 'nats.password', 'manager-password'])
    const manager = await spawnManager(dir, ['--nats', url])
    try {
      expect(await waitForLine(manager, /^NATS:/)).to.match(
        new RegExp(
          `^NATS: not on the broker at ${url} yet \\(Cannot reach the NATS broker at ${url}: .*\\); trying again in the background$`,
        ),
      )
      expect(await cliInOk(dir, ['status'])).to.contain(`NATS     not on the broker at ${url} since `)
      const joined = waitForLine(manager, /nats: joined the broker/, { stream: 'stderr' })
      const broker = await startBroker({ manager: MANAGER_PERMISSIONS, cli: CLIENT_PERMISSIONS }, { port })
      await joined
      const remote = await clientOf(broker, 'cli')
      try {
        expect(await remote.request('manager:status', {}, 'cli:tester')).to.include({ pid: manager.pid })
      } finally {
        await remote.close()
      }
    } finally {
      await stop(manager)
    }
  })

  it('a NATS setting that cannot be used is refused with a coded error, and so is a start with it', async () => {
    const dir = tempDir()
    for (const [value, words] of [
      ['http://panel:4222', 'must start with nats:// or tls://'],
      ['nats://me:secret@panel:4222', 'credentials do not belong in the URL'],
    ] as const) {
      const set = await cliIn(dir, ['setting', 'set', 'nats.url', value])
      expect(set.code, value).to.not.equal(0)
      expect(set.stderr, value).to.contain(words)
    }
    const started = await cliStart(dir, ['--nats', 'http://panel:4222'])
    expect(started.code).to.not.equal(0)
    expect(started.stdout + started.stderr).to.contain('SM_ERR_NATS_CONFIG')
    await cliInOk(dir, ['setting', 'set', 'nats.creds_file', '/nonexistent/node.creds'])
    const again = await cliStart(dir, ['--nats', 'nats://127.0.0.1:4222'])
    expect(again.code).to.not.equal(0)
    expect(again.stdout + again.stderr).to.contain("cannot read '/nonexistent/node.creds'")
  })
})
