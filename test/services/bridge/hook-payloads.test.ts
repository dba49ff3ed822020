import { connect } from '@nats-io/transport-node'
import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { fakeHostBeat, MANAGER_PERMISSIONS, startBroker } from '../../helpers/nats'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const NODE2 = {
  publish: ['sm.agent.node2.>'],
  subscribe: ['sm.agent.node2.>', '_INBOX.agent.node2.>'],
  allowResponses: true,
}

describe("services/bridge: a hook's payload that came from another host fits its action's schema", function () {
  this.timeout(120_000)

  it("answers a host's forged before_* hook whose payload does not fit with SM_ERR_BUS_BAD_PAYLOAD", async () => {
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node2: NODE2 })
    const panel = tempDir()
    await cliInOk(panel, ['setting', 'set', 'nats.user', 'manager'])
    await cliInOk(panel, ['setting', 'set', 'nats.password', 'manager-password'])
    const manager = await spawnManager(panel, ['--nats', broker.url])
    // A hostile "node2": its own credentials and subjects, asking the manager's plugins about an action.
    const fake = await connect({
      servers: broker.url,
      user: 'node2',
      pass: 'node2-password',
      inboxPrefix: '_INBOX.agent.node2',
    })
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const now = new Date().toISOString()
      fake.subscribe('sm.agent.node2.ping', { callback: (_e, m) => void m.respond('') })
      fake.subscribe('sm.agent.node2.req.>', {
        callback: (_e, m) => void m.respond(JSON.stringify({ ok: true, value: [] })),
      })
      const beat = fakeHostBeat('node2', now)
      const ask = async (payload: unknown, timeout = 60_000) =>
        (
          await fake.request(
            'sm.agent.node2.hook',
            JSON.stringify({ event: 'before_command_send', payload, actor: 'cli:root' }),
            { timeout },
          )
        ).json<{ error?: { code: string; status: number; message: string }; veto?: unknown }>()
      // Online once its beat is read: until then the manager does not answer it, so the beat and
      // the question go again each second until it does (the test's own timeout bounds the wait).
      let reply: Awaited<ReturnType<typeof ask>> | undefined
      while (!reply) {
        fake.publish('sm.agent.node2.hb', JSON.stringify(beat))
        reply = await ask({ serverName: 'mine', command: 42 }, 1_000).catch(() => undefined)
      }
      expect(reply?.error?.code).to.equal('SM_ERR_BUS_BAD_PAYLOAD')
      expect(reply?.error?.status).to.equal(400)
      expect(reply?.error?.message).to.contain('before_command_send').and.to.contain('command')
      // One that fits goes on to the usual checks (not its server: no hook, no veto, no error).
      expect(await ask({ serverName: 'mine', command: 'list' })).to.deep.equal({})
    } finally {
      await fake.close()
      await stop(manager)
      await broker.stop()
    }
  })
})
