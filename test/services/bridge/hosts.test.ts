import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { SmError } from '../../../kernel/errors'
import { BridgeClient } from '../../../services/bridge/client'
import type { Host } from '../../../services/bridge/contract'
import { NatsBridgeClient } from '../../../services/bridge/nats-client'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { brokerCertificates, MANAGER_PERMISSIONS, startBroker } from '../../helpers/nats'
import { cli, spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'
import { adminSession } from '../../helpers/web-process'

/** The manager's broker user on `dir` (test/helpers/nats.ts names passwords after their users). */
async function managerCredentials(dir: string): Promise<void> {
  await cliInOk(dir, ['setting', 'set', 'nats.user', 'manager'])
  await cliInOk(dir, ['setting', 'set', 'nats.password', 'manager-password'])
}

/** The next `event` the manager emits, seen over its socket. */
function next(client: BridgeClient, event: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const subscription = client.on(event, (payload) => {
      subscription.dispose()
      resolve(payload as Record<string, unknown>)
    })
  })
}

describe('services/bridge: host agents join the manager over NATS', function () {
  this.timeout(120_000)

  it('an agent with the credentials `agent credentials` made joins as its host, shows in `hosts`, is kept to its own subjects, and leaves', async () => {
    const dir = tempDir()
    const elsewhere = tempDir() // the other machine's data directory
    const made = JSON.parse(await cliInOk(dir, ['agent', 'credentials', 'node2', '--json']))
    expect(made.seed).to.match(/^SU[A-Z2-7]{56}$/)
    expect(made.brokerUser).to.deep.equal({
      nkey: made.publicKey,
      permissions: {
        publish: ['sm.agent.node2.>'],
        subscribe: ['sm.agent.node2.>', '_INBOX.agent.node2.>'],
        allow_responses: { max: 1, expires: '1h' },
      },
    })
    const seedFile = join(elsewhere, 'node2.seed')
    writeFileSync(seedFile, `${made.seed}\n`, { mode: 0o600 })
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS }, { entries: [made.brokerUser] })
    await managerCredentials(dir)
    const manager = await spawnManager(dir, ['--nats', broker.url])
    try {
      // The last line before "ready": lines before it may come in its chunk, so it is the one waited for.
      await waitForLine(manager, /^NATS: on the broker/)
      const { url } = JSON.parse(await cliInOk(dir, ['web', 'status', '--json']))
      expect(await cliInOk(dir, ['hosts'])).to.contain('No host agent has joined since the manager started')
      // node2's credentials under another name: the broker lets them use no subject of node3's,
      // and the agent says so and ends, rather than run and claim to be ready.
      const misnamed = await cli(tempDir(), [
        'agent',
        'start',
        '--nats',
        broker.url,
        '--name',
        'node3',
        '--credentials',
        seedFile,
      ])
      expect(misnamed.code).to.equal(77)
      expect(misnamed.stderr).to.contain('SM_ERR_NATS_REFUSED').and.to.contain("subscribe to 'sm.agent.node3.req.>'")
      expect(misnamed.stdout).to.not.match(/^ready/m)
      const token = await adminSession(dir, url)
      const events = (await BridgeClient.connect(dir)) as BridgeClient
      try {
        const online = next(events, 'nats:host_online')
        const agent = spawnCli(elsewhere, [
          'agent',
          'start',
          '--nats',
          broker.url,
          '--name',
          'node2',
          '--credentials',
          seedFile,
        ])
        expect(await online).to.include({ name: 'node2' })
        const { hosts } = JSON.parse(await cliInOk(dir, ['hosts', '--json'])) as { hosts: Host[] }
        expect(
          hosts.map((h) => [h.name, h.online, h.pid > 0, h.servers.length, h.memory.total > 0, h.disk.total > 0]),
        ).to.deep.equal([['node2', true, true, 0, true, true]])
        expect(await cliInOk(dir, ['hosts'])).to.match(/^node2\s+online\s/m)
        // The web API and the hosts page say the same.
        const api = await http(`${url}/api/hosts`, { token })
        expect(api.status).to.equal(200)
        expect(api.json.nats).to.include({ configured: true, connected: true, url: broker.url })
        expect(api.json.hosts.map((h: Host) => [h.name, h.online])).to.deep.equal([['node2', true]])
        expect((await http(`${url}/hosts`, { token, headers: { Accept: 'text/html' } })).status).to.equal(200)

        // Its credentials are its alone: the manager's commands are out of its reach.
        const asAgent = await NatsBridgeClient.connect(
          { url: broker.url, credentials: seedFile, prefix: 'sm' },
          { inboxPrefix: '_INBOX.agent.node2' },
        )
        try {
          const refused = await asAgent
            .request('settings:set', { key: 'custom.x', value: 1 }, 'cli:node2')
            .catch((e) => e)
          expect(refused).to.be.instanceOf(SmError)
          expect((refused as SmError).code).to.equal('SM_ERR_NATS_REFUSED')
        } finally {
          await asAgent.close()
        }

        // Stopped, it says goodbye: offline at once, its last figures kept.
        const offline = next(events, 'nats:host_offline')
        expect(await stop(agent)).to.equal(0)
        expect(await offline).to.include({ name: 'node2', reason: 'it said goodbye' })
        expect(await cliInOk(dir, ['hosts'])).to.match(/^node2\s+OFFLINE\s/m)
      } finally {
        events.close()
      }
    } finally {
      await stop(manager)
    }
  })

  it('a host whose agent dies is offline after three missed beats; both ends rejoin a broker that restarts, by themselves', async () => {
    const dir = tempDir()
    const elsewhere = tempDir()
    const agentUser = {
      publish: ['sm.agent.node3.>'],
      subscribe: ['sm.agent.node3.>', '_INBOX.agent.node3.>'],
      allowResponses: true,
    }
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node3: agentUser })
    await managerCredentials(dir)
    const manager = await spawnManager(dir, ['--nats', broker.url])
    const agentEnv = { SM_NATS_USER: 'node3', SM_NATS_PASSWORD: 'node3-password' }
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const events = (await BridgeClient.connect(dir)) as BridgeClient
      try {
        // The broker goes away and comes back: the manager and the agent reconnect with no help.
        let online = next(events, 'nats:host_online')
        const agent = spawnCli(elsewhere, ['agent', 'start', '--nats', broker.url, '--name', 'node3'], agentEnv)
        await online
        const lost = waitForLine(manager, /nats: lost the broker/, { stream: 'stderr' })
        const back = waitForLine(manager, /nats: back on the broker/, { stream: 'stderr' })
        const agentBack = waitForLine(agent, /nats: back on the broker/, { stream: 'stderr' })
        await broker.stop()
        await lost
        await broker.start()
        await back
        await agentBack
        const { nats } = JSON.parse(await cliInOk(dir, ['hosts', '--json']))
        expect(nats).to.include({ connected: true })

        // Killed with -9, it says nothing: three beats missed and it is offline, its last figures kept.
        const { hosts } = JSON.parse(await cliInOk(dir, ['hosts', '--json'])) as { hosts: Host[] }
        const pid = hosts.find((h) => h.name === 'node3')?.pid as number
        const offline = next(events, 'nats:host_offline')
        process.kill(pid, 'SIGKILL')
        expect(await offline).to.include({ name: 'node3', reason: 'no word from it for 15 s' })
        await stop(agent)
        expect(await cliInOk(dir, ['hosts'])).to.match(/^node3\s+OFFLINE\s/m)
        // Started again, it is back.
        online = next(events, 'nats:host_online')
        const again = spawnCli(elsewhere, ['agent', 'start', '--nats', broker.url, '--name', 'node3'], agentEnv)
        expect(await online).to.include({ name: 'node3' })
        expect(await stop(again)).to.equal(0)
      } finally {
        events.close()
      }
    } finally {
      await stop(manager)
    }
  })

  it("over TLS: the manager and an agent that trust the broker's CA join it; one that does not is told what to set", async () => {
    const certs = await brokerCertificates()
    const agentUser = {
      publish: ['sm.agent.node4.>'],
      subscribe: ['sm.agent.node4.>', '_INBOX.agent.node4.>'],
      allowResponses: true,
    }
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node4: agentUser }, { tls: certs })
    const url = broker.url.replace('nats://', 'tls://')
    const dir = tempDir()
    const elsewhere = tempDir()
    await managerCredentials(dir)
    const untrusting = await spawnManager(dir, ['--nats', url])
    try {
      expect(await waitForLine(untrusting, /^NATS:/)).to.match(
        /not on the broker .* its TLS certificate is not trusted .*nats\.tls_ca/,
      )
    } finally {
      await stop(untrusting)
    }
    await cliInOk(dir, ['setting', 'set', 'nats.tls_ca', certs.ca])
    const manager = await spawnManager(dir, ['--nats', url])
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const events = (await BridgeClient.connect(dir)) as BridgeClient
      try {
        const online = next(events, 'nats:host_online')
        const env = { SM_NATS_USER: 'node4', SM_NATS_PASSWORD: 'node4-password' }
        const agent = spawnCli(
          elsewhere,
          ['agent', 'start', '--nats', url, '--name', 'node4', '--tls-ca', certs.ca],
          env,
        )
        expect(await online).to.include({ name: 'node4' })
        expect(await stop(agent)).to.equal(0)
      } finally {
        events.close()
      }
    } finally {
      await stop(manager)
    }
  })

  it('says when two agents beat as one host (the same name and credentials on two machines)', async () => {
    const agentUser = {
      publish: ['sm.agent.node5.>'],
      subscribe: ['sm.agent.node5.>', '_INBOX.agent.node5.>'],
      allowResponses: true,
    }
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node5: agentUser })
    const dir = tempDir()
    await managerCredentials(dir)
    const manager = await spawnManager(dir, ['--nats', broker.url])
    const env = { SM_NATS_USER: 'node5', SM_NATS_PASSWORD: 'node5-password' }
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const twins = waitForLine(manager, /two agents beat as host 'node5'/, { stream: 'stderr' })
      const one = spawnCli(tempDir(), ['agent', 'start', '--nats', broker.url, '--name', 'node5'], env)
      const other = spawnCli(tempDir(), ['agent', 'start', '--nats', broker.url, '--name', 'node5'], env)
      expect(await twins).to.contain('give each machine its own --name and credentials')
      await Promise.all([stop(one), stop(other)])
    } finally {
      await stop(manager)
    }
  })

  it('refuses a host name that cannot be a subject, and says `hosts` needs a running manager', async () => {
    const dir = tempDir()
    const bad = await cliIn(dir, ['agent', 'credentials', 'node.2'])
    expect(bad.code).to.equal(64)
    expect(bad.stderr).to.contain('SM_ERR_CLI_INVALID_ARGUMENT')
    const none = await cliIn(dir, ['hosts'])
    expect(none.code).to.equal(3)
    expect(none.stderr).to.contain('SM_ERR_MANAGER_NOT_RUNNING')
  })
})
