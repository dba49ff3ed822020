import { existsSync } from 'node:fs'
import { expect } from 'chai'
import { BridgeClient } from '../../../services/bridge/client'
import { hostFactTypes } from '../../../services/bridge/contract'
import type { StoredEvent } from '../../../services/events/contract'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { nextEvent } from '../../helpers/facts'
import { fakeBedrockDir, gameDataDir, runState } from '../../helpers/game'
import { managerCatalogue } from '../../helpers/manager'
import { brokerLink, MANAGER_PERMISSIONS, startBroker } from '../../helpers/nats'
import { spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { http } from '../../helpers/web'
import { adminSession } from '../../helpers/web-process'

const HOSTS = ['node2', 'node3'] as const
type HostName = (typeof HOSTS)[number]
const ADDRESS: Record<HostName, string> = { node2: '127.0.0.2', node3: '127.0.0.3' }
const agentUser = (host: string) => ({
  publish: [`sm.agent.${host}.>`],
  subscribe: [`sm.agent.${host}.>`, `_INBOX.agent.${host}.>`],
  allowResponses: true,
})
const agentEnv = (host: string) => ({ SM_NATS_USER: host, SM_NATS_PASSWORD: `${host}-password` })

/**
 * Three machines on one: a broker on 127.0.0.1 with the panel's manager on it, and node2's and
 * node3's host agents each reaching it from an address of its own (127.0.0.2, 127.0.0.3) through a
 * link the test can cut; every process on a data directory of its own. Resolves once both hosts
 * are online at the manager.
 */
async function threeMachines() {
  const broker = await startBroker({
    manager: MANAGER_PERMISSIONS,
    node2: agentUser('node2'),
    node3: agentUser('node3'),
  })
  const panel = gameDataDir()
  await cliInOk(panel, ['setting', 'set', 'nats.user', 'manager'])
  await cliInOk(panel, ['setting', 'set', 'nats.password', 'manager-password'])
  const manager = await spawnManager(panel, ['--nats', broker.url])
  await waitForLine(manager, /^NATS: on the broker/)
  const events = (await BridgeClient.connect(panel)) as BridgeClient
  const hosts = {} as Record<
    HostName,
    { dir: string; link: Awaited<ReturnType<typeof brokerLink>>; agent: ReturnType<typeof spawnCli> }
  >
  const online = HOSTS.map((host) => nextEvent(events, 'nats:host_online', (p) => p.name === host))
  for (const host of HOSTS) {
    const dir = gameDataDir()
    const link = await brokerLink(ADDRESS[host], broker)
    hosts[host] = { dir, link, agent: startAgent(dir, link.url, host) }
  }
  await Promise.all(online)
  const { url } = JSON.parse(await cliInOk(panel, ['web', 'status', '--json']))
  const token = await adminSession(panel, url)
  return { broker, panel, manager, events, hosts, url: url as string, token }
}

function startAgent(dir: string, url: string, host: string) {
  return spawnCli(dir, ['agent', 'start', '--nats', url, '--name', host], agentEnv(host))
}

/** Every fact `dir`'s process recorded of the types a host's manager takes in (seq order). */
async function hostFacts(dir: string): Promise<StoredEvent[]> {
  const client = (await BridgeClient.connect(dir)) as BridgeClient
  try {
    return (await client.request(
      'events:read',
      { types: hostFactTypes(managerCatalogue()), limit: 10_000 },
      'cli:test',
    )) as StoredEvent[]
  } finally {
    client.close()
  }
}

/** The host facts the manager on `panel` took in from `host`, as (the host's seq, type) in the manager's order. */
async function takenIn(panel: string, host: string): Promise<[number, string][]> {
  return (await hostFacts(panel)).flatMap((event) => {
    const origin = (event.payload as { origin?: { host: string; seq: number } }).origin
    return origin?.host === host ? [[origin.seq, event.type] as [number, string]] : []
  })
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('services/servers: a manager and two host agents, each on a loopback address of its own (issue 22, must hold)', function () {
  this.timeout(300_000)

  it('adds, starts, commands, backs up and stops a server on each host, from the CLI and from the HTTP API; an agent killed with -9 leaves its game running, adopts it again, and no fact is lost', async () => {
    const { panel, manager, events, hosts, url, token } = await threeMachines()
    const agents = () => HOSTS.map((host) => hosts[host].agent)
    try {
      // node2 from the CLI.
      const alpha = fakeBedrockDir()
      await cliInOk(panel, ['server', 'add', 'alpha', '--dir', alpha, '--host', 'node2'])
      await cliInOk(panel, ['server', 'start', 'alpha'])
      expect(runState(hosts.node2.dir, 'alpha')?.status).to.equal('running')
      expect(await cliInOk(panel, ['server', 'send', 'alpha', 'list'])).to.match(/players online/)
      expect(await cliInOk(panel, ['server', 'backup', 'alpha'])).to.match(/world_.*\.mcworld/)
      const [backup] = JSON.parse(await cliInOk(panel, ['server', 'backups', 'alpha', '--json']))
      // On node2's disk, not the panel's.
      expect(backup.file).to.match(/^world_.*\.mcworld$/)
      expect(existsSync(`${hosts.node2.dir}/backups/alpha/${backup.file}`)).to.equal(true)
      expect(existsSync(`${panel}/backups/alpha`)).to.equal(false)
      await cliInOk(panel, ['server', 'stop', 'alpha'])
      // Stopped: exit 3, as an LSB status says it.
      const stopped = await cliIn(panel, ['server', 'status', 'alpha', '--json'])
      expect([stopped.code, JSON.parse(stopped.stdout).status]).to.deep.equal([3, 'stopped'])

      // node3 from the HTTP API: each power action and the backup a task there, followed here.
      // Every task that ends, kept: one may end before its POST is answered.
      const ended = new Map<string, Record<string, unknown>>()
      const waiting = new Map<string, (task: Record<string, unknown>) => void>()
      events.on('tasks:finished', (payload) => {
        const task = payload as Record<string, unknown>
        ended.set(String(task.id), task)
        waiting.get(String(task.id))?.(task)
      })
      const finished = (id: string) =>
        ended.get(id) ?? new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve))
      const task = async (path: string, body?: object) => {
        const begun = await http(`${url}${path}`, { token, method: 'POST', ...(body ? { body } : {}) })
        expect(begun.status, `${path}: ${begun.text}`).to.equal(202)
        expect(begun.json.task_id).to.match(/^node3\//)
        const done = await finished(begun.json.task_id)
        expect(done, path).to.include({ state: 'succeeded' })
      }
      const added = await http(`${url}/api/servers`, {
        token,
        body: { name: 'beta', dir: fakeBedrockDir(), host: 'node3' },
      })
      expect(added.status).to.equal(201)
      expect(added.json.server).to.include({ name: 'beta', host: 'node3' })
      await task('/api/servers/beta/start')
      // Its game's PID on node3, as node3's beats tell the manager (every 5 s).
      for (;;) {
        const listed = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
        const pid = listed.find((s: { name: string }) => s.name === 'beta').pid
        if (pid === undefined) continue
        expect(pid).to.equal(runState(hosts.node3.dir, 'beta')?.game?.pid)
        break
      }
      await task('/api/servers/beta/backups', { type: 'world' })
      const sent = await http(`${url}/api/servers/beta/command`, { token, body: { command: 'list' } })
      expect(sent.json.reply.join('\n')).to.match(/players online/)
      const listed = await http(`${url}/api/servers/beta/backups`, { token })
      expect(listed.json.backups).to.have.length(1)
      expect(existsSync(`${hosts.node3.dir}/backups/beta/${listed.json.backups[0].file}`)).to.equal(true)
      const servers = await http(`${url}/api/servers`, { token })
      expect(
        servers.json.servers.map((s: { name: string; host: string; status: string }) => [s.name, s.host, s.status]),
      ).to.deep.equal([
        ['alpha', 'node2', 'stopped'],
        ['beta', 'node3', 'running'],
      ])

      // kill -9 of node3's agent (its manager and its supervision agent alike): the game runs on.
      const before = runState(hosts.node3.dir, 'beta')
      const game = before?.game?.pid as number
      const supervisor = before?.supervisor?.pid as number
      expect(alive(game) && alive(supervisor)).to.equal(true)
      const offline = nextEvent(events, 'nats:host_offline', (p) => p.name === 'node3')
      hosts.node3.agent.kill('SIGKILL')
      process.kill(supervisor, 'SIGKILL')
      await offline
      expect(alive(game)).to.equal(true)
      // Started again (by hand, or its systemd unit): it adopts the game, which never stopped.
      const online = nextEvent(events, 'nats:host_online', (p) => p.name === 'node3')
      hosts.node3.agent = startAgent(hosts.node3.dir, hosts.node3.link.url, 'node3')
      await waitForLine(hosts.node3.agent, /^ready/)
      await online
      const status = JSON.parse(await cliInOk(panel, ['server', 'status', 'beta', '--json']))
      expect(status).to.include({ status: 'running' })
      expect(runState(hosts.node3.dir, 'beta')?.game?.pid).to.equal(game)
      expect(runState(hosts.node3.dir, 'beta')?.supervisor?.pid).to.not.equal(supervisor)
      await task('/api/servers/beta/stop')

      // No fact lost, none twice: every host fact each host recorded is in the manager's log once, in order.
      for (const host of HOSTS) {
        await cliIn(panel, ['server', 'status', host === 'node2' ? 'alpha' : 'beta']) // a routed command syncs
        const recorded = (await hostFacts(hosts[host].dir)).map((e) => [e.seq, e.type])
        expect(recorded.length, host).to.be.greaterThan(3)
        expect(await takenIn(panel, host), host).to.deep.equal(recorded)
      }
    } finally {
      events.close()
      for (const agent of agents()) await stop(agent)
      await stop(manager)
    }
  })

  it('a link that stalls fails a command after the ping; one cut for 30 s while its server crashes and restarts fails commands at once naming the host, and once it is back the crash and the restart are in the log once each, in order, and the status is right', async () => {
    const { panel, manager, events, hosts } = await threeMachines()
    const { node2 } = hosts
    try {
      await cliInOk(panel, ['server', 'add', 'gamma', '--dir', fakeBedrockDir(), '--host', 'node2'])
      await cliInOk(panel, ['server', 'start', 'gamma'])
      const first = runState(node2.dir, 'gamma')?.game?.pid as number

      // A link that dies silently (no TCP close: neither the broker nor a missed beat tells yet):
      // a command fails once the host has not answered the ping before it, not after missed beats.
      node2.link.stall()
      const silent = await cliIn(panel, ['server', 'status', 'gamma'])
      expect(silent.code).to.equal(69)
      expect(silent.stderr).to.contain('SM_ERR_HOST_UNREACHABLE').and.to.contain('did not answer a ping within 3 s')
      await node2.link.mend()
      expect(JSON.parse(await cliInOk(panel, ['server', 'status', 'gamma', '--json']))).to.include({
        status: 'running',
      })

      const offline = nextEvent(events, 'nats:host_offline', (p) => p.name === 'node2')
      const cutAt = Date.now()
      await node2.link.cut()
      // At once, before the manager has missed a beat: nobody answers on node2's subjects.
      const refused = await cliIn(panel, ['server', 'status', 'gamma'])
      expect(refused.code).to.equal(69)
      expect(refused.stderr).to.contain('SM_ERR_HOST_UNREACHABLE').and.to.contain("Host 'node2'")

      // Meanwhile on node2, with no manager to reach: its game crashes and its agent restarts it.
      const here = (await BridgeClient.connect(node2.dir)) as BridgeClient
      const restarted = nextEvent(
        here,
        'after_server_status_change',
        (p) => p.serverName === 'gamma' && p.status === 'running',
      )
      process.kill(first, 'SIGKILL')
      await restarted
      here.close()
      await offline
      const [gamma] = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
      expect(gamma).to.include({ name: 'gamma', status: 'unknown' })
      const stillRefused = await cliIn(panel, ['server', 'send', 'gamma', 'list'])
      expect(stillRefused.code).to.equal(69)
      expect(stillRefused.stderr).to.contain('SM_ERR_HOST_UNREACHABLE').and.to.contain('offline since')

      // The link stays down for 30 s in all (long enough for the client to give up its own
      // reconnects: the agent's link must start a new connection by itself), then comes back.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 30_000 - (Date.now() - cutAt))))
      const online = nextEvent(events, 'nats:host_online', (p) => p.name === 'node2')
      await node2.link.mend()
      await online

      const status = JSON.parse(await cliInOk(panel, ['server', 'status', 'gamma', '--json']))
      expect(status).to.include({ status: 'running' })
      expect(status.pid ?? runState(node2.dir, 'gamma')?.game?.pid).to.not.equal(first)
      // In the manager's log, as node2 recorded them: the crash once, then the restart's way back to running.
      const taken = await takenIn(panel, 'node2')
      expect(taken).to.deep.equal((await hostFacts(node2.dir)).map((e) => [e.seq, e.type]))
      const changes = (await hostFacts(panel))
        .filter((e) => (e.payload as { origin?: { host: string } }).origin?.host === 'node2')
        .map((e) => (e.type === 'after_server_crash' ? 'crash' : (e.payload as { status?: string }).status))
        .filter((what) => what !== undefined)
      expect(changes.filter((what) => what === 'crash')).to.have.length(1)
      expect(changes.slice(changes.indexOf('crash') - 1)).to.deep.equal(['crashed', 'crash', 'starting', 'running'])
      const [now] = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
      expect(now).to.include({ name: 'gamma', status: 'running' })
      await cliInOk(panel, ['server', 'stop', 'gamma'])
    } finally {
      events.close()
      for (const host of HOSTS) await stop(hosts[host].agent)
      await stop(manager)
    }
  })
})
