import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, openAsBlob, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { expect } from 'chai'
import { BridgeClient } from '../../../services/bridge/client'
import type { StoredEvent } from '../../../services/events/contract'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { factsOf, nextEvent } from '../../helpers/facts'
import { fakeBedrockDir, gameDataDir, runState } from '../../helpers/game'
import { killAndWait } from '../../helpers/leaks'
import { fakeHostBeat, MANAGER_PERMISSIONS, startBroker } from '../../helpers/nats'
import { plugin, writePlugins } from '../../helpers/plugins'
import { spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { postFile } from '../../helpers/upload'
import { http } from '../../helpers/web'
import { adminSession } from '../../helpers/web-process'

const NODE2 = {
  publish: ['sm.agent.node2.>'],
  subscribe: ['sm.agent.node2.>', '_INBOX.agent.node2.>'],
  allowResponses: true,
}
const AGENT_ENV = { SM_NATS_USER: 'node2', SM_NATS_PASSWORD: 'node2-password' }

/** A panel plugin that vetoes one console command, wherever its server runs. */
const GUARD = plugin(
  'Guard',
  `beforeCommandSend({ command }: { command: string }) {
    if (command === 'forbidden') return { cancel: true, reason: 'not on my watch' } as const
    return undefined
  }`,
)

/** A panel plugin that vetoes saving one file, wherever its server runs. */
const GUARD_FILES = plugin(
  'Guard',
  `beforeFileWrite({ path }: { path: string }) {
    if (path === 'secret.txt') return { cancel: true, reason: 'no secrets here' } as const
    return undefined
  }`,
)

/**
 * Two machines on one: a broker, the panel's manager (its plugins written first) and node2's
 * host agent, each on its own data directory; resolves once node2 is online at the manager.
 */
async function twoMachines(
  plugins: Record<string, string> = {},
  brokerOptions: Parameters<typeof startBroker>[1] = {},
) {
  const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node2: NODE2 }, brokerOptions)
  const panel = gameDataDir()
  const node2 = gameDataDir() // the other machine's data directory
  writePlugins(panel, plugins)
  for (const name of Object.keys(plugins)) await cliInOk(panel, ['plugin', 'enable', name.replace(/\.ts$/, '')])
  await cliInOk(panel, ['setting', 'set', 'nats.user', 'manager'])
  await cliInOk(panel, ['setting', 'set', 'nats.password', 'manager-password'])
  const manager = await spawnManager(panel, ['--nats', broker.url])
  await waitForLine(manager, /^NATS: on the broker/)
  const events = (await BridgeClient.connect(panel)) as BridgeClient
  const online = nextEvent(events, 'nats:host_online')
  const agent = spawnCli(node2, ['agent', 'start', '--nats', broker.url, '--name', 'node2'], AGENT_ENV)
  expect(await waitForLine(agent, /^NATS:/)).to.equal(`NATS: on the broker at ${broker.url} as host 'node2'`)
  await online
  return { broker, panel, node2, manager, events, agent }
}

describe('services/servers: servers on another host, through its agent (issue 22 items 3 to 5)', function () {
  this.timeout(180_000)

  it("adds, lists, starts, commands and stops a server on node2 from the manager; its facts reach the log once, and the manager's plugins veto there", async () => {
    const { panel, node2, manager, events, agent } = await twoMachines({ 'guard.ts': GUARD })
    try {
      const dir = fakeBedrockDir()
      expect(await cliInOk(panel, ['server', 'add', 'far', '--dir', dir, '--host', 'node2'])).to.equal(
        `Server 'far' added: bedrock server in ${dir} on host 'node2'.\n`,
      )
      expect(await cliInOk(panel, ['server', 'info', 'far'])).to.match(/^host\s+node2 \(/m)
      expect(await cliInOk(node2, ['status'])).to.contain("host agent 'node2', subjects sm.agent.node2.>")
      // A name is one server's on every host.
      const twice = await cliIn(panel, ['server', 'add', 'far', '--dir', fakeBedrockDir()])
      expect(twice.stderr).to.contain('SM_ERR_SERVER_EXISTS')
      // Installed there from a folder on that machine.
      const target = join(tempDir(), 'copy')
      expect(
        await cliInOk(panel, [
          'server',
          'install',
          'copy',
          '--from',
          fakeBedrockDir(),
          '--dir',
          target,
          '--host',
          'node2',
        ]),
      ).to.contain(`installed in ${target} on host 'node2'`)
      const nowhere = await cliIn(panel, ['server', 'add', 'x', '--dir', dir, '--host', 'node9'])
      expect(nowhere.stderr).to.contain('SM_ERR_HOST_UNKNOWN')

      const listed = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
      expect(
        listed.map((s: { name: string; host?: string; status: string }) => [s.name, s.host, s.status]),
      ).to.deep.equal([
        ['copy', 'node2', 'stopped'],
        ['far', 'node2', 'stopped'],
      ])
      expect(await cliInOk(panel, ['server', 'list'])).to.match(/^far\s+node2\s+bedrock\s+stopped\s/m)

      await cliInOk(panel, ['server', 'start', 'far'])
      // It runs on node2, under node2's agent: the panel has no run directory for it.
      expect(runState(node2, 'far')?.status).to.equal('running')
      expect(runState(panel, 'far')).to.equal(undefined)
      expect(JSON.parse(await cliInOk(panel, ['server', 'status', 'far', '--json']))).to.include({ status: 'running' })
      expect(await cliInOk(panel, ['server', 'send', 'far', 'list'])).to.match(/players online/)
      // Its console log is on node2: followed from here as node2 relays its lines.
      const follow = spawnCli(panel, ['server', 'logs', 'far', '--follow', '--lines', '2'])
      await waitForLine(follow, /players online/) // of the last lines, read there
      await cliInOk(panel, ['server', 'send', 'far', 'list'])
      await waitForLine(follow, /players online/) // the new one, relayed
      expect(await stop(follow, 'SIGINT')).to.equal(0)

      // The manager's plugin is asked about an action on node2, and its veto holds there.
      const vetoed = await cliIn(panel, ['server', 'send', 'far', 'forbidden'])
      expect(vetoed.code).to.not.equal(0)
      expect(vetoed.stderr).to.contain('plugin:guard').and.to.contain('not on my watch')

      await cliInOk(panel, ['server', 'stop', 'far'])
      expect(JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))[0]).to.include({ status: 'stopped' })
      // The web API and pages say the same, and add on a host too.
      const { url } = JSON.parse(await cliInOk(panel, ['web', 'status', '--json']))
      const token = await adminSession(panel, url)
      const listedOverHttp = await http(`${url}/api/servers`, { token })
      expect(listedOverHttp.json.servers.map((s: { name: string; host?: string }) => [s.name, s.host])).to.deep.equal([
        ['copy', 'node2'],
        ['far', 'node2'],
      ])
      const addedOverHttp = await http(`${url}/api/servers`, {
        token,
        body: { name: 'near', dir: fakeBedrockDir(), host: 'node2' },
      })
      expect(addedOverHttp.status).to.equal(201)
      expect(addedOverHttp.json.server).to.include({ name: 'near', host: 'node2' })
      const page = await http(`${url}/add-server`, { token, headers: { Accept: 'text/html' } })
      expect(page.text).to.contain('<option value="node2">')
      expect((await http(`${url}/`, { token, headers: { Accept: 'text/html' } })).text).to.contain('on node2')

      // A power action from the web is a task on node2, followed here by the name the manager gave it.
      const finished = nextEvent(events, 'tasks:finished', (task) => String(task.id).startsWith('node2/'))
      const begun = await http(`${url}/api/servers/far/start`, { token, method: 'POST' })
      expect(begun.status).to.equal(202)
      expect(begun.json.task_id).to.match(/^node2\//)
      expect(await finished).to.include({ id: begun.json.task_id, state: 'succeeded' })
      const task = await http(`${url}/api/tasks/${encodeURIComponent(begun.json.task_id)}`, { token })
      expect(task.json.task).to.include({ id: begun.json.task_id, state: 'succeeded' })
      await cliInOk(panel, ['server', 'stop', 'far'])

      // A schedule of a server on node2 is node2's to run; the manager lists and removes it by `node2/<id>`.
      await cliInOk(panel, ['server', 'add', 'here', '--dir', fakeBedrockDir()])
      const remote = JSON.parse(
        await cliInOk(panel, [
          'server',
          'schedule',
          'add',
          'far',
          '--cron',
          '0 4 * * *',
          '--action',
          'restart',
          '--json',
        ]),
      )
      expect(remote.id).to.match(/^node2\/[0-9a-f]+$/)
      const local = JSON.parse(
        await cliInOk(panel, [
          'server',
          'schedule',
          'add',
          'here',
          '--cron',
          '0 5 * * *',
          '--action',
          'backup',
          '--json',
        ]),
      )
      const all = JSON.parse(await cliInOk(panel, ['server', 'schedule', 'list', '--json']))
      expect(all.map((s: { id: string; server: string }) => [s.id, s.server])).to.have.deep.members([
        [local.id, 'here'],
        [remote.id, 'far'],
      ])
      expect(JSON.parse(await cliInOk(panel, ['server', 'schedule', 'list', 'far', '--json']))[0].id).to.equal(
        remote.id,
      )
      const bare = remote.id.slice('node2/'.length)
      expect(JSON.parse(await cliInOk(node2, ['server', 'schedule', 'list', '--json']))[0].id).to.equal(bare)
      expect(await cliInOk(panel, ['server', 'schedule', 'remove', remote.id])).to.contain(`Schedule ${remote.id}`)
      expect(JSON.parse(await cliInOk(node2, ['server', 'schedule', 'list', '--json']))).to.deep.equal([])
      await cliInOk(panel, ['server', 'schedule', 'remove', local.id])
      await cliInOk(panel, ['server', 'remove', 'here'])

      // A host speaks for its own servers only: node2 adding a server under a name this machine
      // holds (with its own CLI) changes nothing here, and the next routed command's sync leaves it out.
      await cliInOk(panel, ['server', 'add', 'home', '--dir', fakeBedrockDir()])
      await cliInOk(node2, ['server', 'add', 'home', '--dir', fakeBedrockDir()])
      await cliInOk(panel, ['server', 'status', 'far', '--json']).catch(() => '')
      const home = JSON.parse(await cliInOk(panel, ['server', 'list', '--json'])).find(
        (s: { name: string }) => s.name === 'home',
      )
      expect(home.host).to.equal(undefined)
      expect(
        (await factsOf(panel, 'servers:added')).filter(
          (e) => (e.payload as { server: { name: string } }).server.name === 'home',
        ),
      ).to.have.length(1)

      // Its facts are in the manager's log, each once, marked with where they come from.
      const added = await factsOf(panel, 'servers:added')
      expect(
        added.map((e) => [
          (e.payload as { server: { name: string } }).server.name,
          (e.payload as { origin?: { host: string } }).origin?.host,
        ]),
      ).to.deep.equal([
        ['far', 'node2'],
        ['copy', 'node2'],
        ['near', 'node2'],
        ['here', undefined],
        ['home', undefined],
      ])
      const starts = await factsOf(panel, 'after_server_start')
      expect(starts).to.have.length(2)
      const sends = await factsOf(panel, 'after_command_send')
      expect(sends.map((e) => (e.payload as { result: { status: string } }).result.status)).to.deep.equal([
        'success',
        'success',
        'cancelled',
      ])
      const onNode2 = await factsOf(node2, 'after_command_send')
      expect(onNode2).to.have.length(3)
    } finally {
      events.close()
      await stop(agent)
      await stop(manager)
    }
  })

  it("the file manager and backups' downloads reach a server on node2: files and releases from here are sent there in pieces, and the manager's plugins veto there too", async () => {
    // A broker that carries less than a piece in one message (64 KiB): pieces fit what it carries.
    const { panel, node2, manager, events, agent } = await twoMachines(
      { 'guard.ts': GUARD_FILES },
      { maxPayload: 64 * 1024 },
    )
    try {
      const dir = fakeBedrockDir()
      writeFileSync(join(dir, 'server.properties'), 'server-name=far\n')
      mkdirSync(join(dir, 'worlds', 'Bedrock level', 'db'), { recursive: true })
      writeFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), randomBytes(64))
      await cliInOk(panel, ['server', 'add', 'far', '--dir', dir, '--host', 'node2'])
      const { url } = JSON.parse(await cliInOk(panel, ['web', 'status', '--json']))
      const token = await adminSession(panel, url)
      const api = (path: string, options: Parameters<typeof http>[1] = {}) =>
        http(`${url}/api/servers/far/files${path}`, { token, ...options })

      const listing = await api('')
      expect(listing.status, listing.text).to.equal(200)
      expect(listing.json.entries.map((e: { name: string }) => e.name)).to.include('server.properties')
      const read = await api('/text?path=server.properties')
      expect(read.json.text).to.equal('server-name=far\n')
      const saved = await api('/text', {
        method: 'PUT',
        body: { path: 'server.properties', text: 'server-name=far2\n', expected_hash: read.json.hash },
      })
      expect(saved.status, saved.text).to.equal(200)
      expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.equal('server-name=far2\n')
      // The manager's plugin is asked about a save on node2, and its veto holds there.
      const vetoed = await api('/text', { method: 'PUT', body: { path: 'secret.txt', text: 'x' } })
      expect(vetoed.status).to.equal(409)
      expect(vetoed.json.message).to.contain('plugin:guard')
      expect(existsSync(join(dir, 'secret.txt'))).to.equal(false)

      // Larger than a piece, both ways: uploaded from here, downloaded from there, byte for byte.
      const bytes = randomBytes(700 * 1024)
      const local = join(tempDir(), 'blob.bin')
      writeFileSync(local, bytes)
      const uploaded = await postFile(
        `${url}/api/servers/far/files/upload`,
        token,
        { path: 'blob.bin' },
        await openAsBlob(local),
      )
      expect(uploaded.status, uploaded.text).to.equal(201)
      expect(readFileSync(join(dir, 'blob.bin')).equals(bytes)).to.equal(true)
      // Located there (both machines share this one's disk here: the host says it is its file).
      const located = (await events.request('files:download', { name: 'far', path: 'blob.bin' }, 'cli:test')) as {
        host?: string
      }
      expect(located.host).to.equal('node2')
      const download = await fetch(`${url}/api/servers/far/files/download?path=blob.bin`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      expect(download.status).to.equal(200)
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).to.equal(true)
      // An upload refused there (no such folder) leaves nothing behind there; a file to upload
      // that is not one here is refused here, and nothing of node2's is touched.
      const refused = await postFile(
        `${url}/api/servers/far/files/upload`,
        token,
        { path: 'nope/blob.bin' },
        await openAsBlob(local),
      )
      expect(refused.status, refused.text).to.equal(404)
      expect(
        readdirSync(join(node2, 'tmp', 'stage')).flatMap((pid) => readdirSync(join(node2, 'tmp', 'stage', pid))),
      ).to.deep.equal([])
      const notHere = await events
        .request('files:upload', { name: 'far', path: 'x.bin', from: '/nonexistent/x.bin' }, 'cli:test')
        .catch((error: { code: string }) => error)
      expect((notHere as { code: string }).code).to.equal('SM_ERR_FILE_SOURCE_MISSING')
      expect((await api('/rename', { body: { path: 'blob.bin', to: 'moved.bin' } })).status).to.equal(200)
      expect((await api('?path=moved.bin', { method: 'DELETE' })).status).to.equal(200)
      expect(existsSync(join(dir, 'moved.bin'))).to.equal(false)

      // A backup taken there downloads from here, whole; and a world file from here imports there.
      await cliInOk(panel, ['server', 'backup', 'far'])
      const [backup] = JSON.parse(await cliInOk(panel, ['server', 'backups', 'far', '--json']))
      const archive = await fetch(`${url}/api/servers/far/backups/${encodeURIComponent(backup.file)}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      expect(archive.status).to.equal(200)
      const downloaded = Buffer.from(await archive.arrayBuffer())
      expect(downloaded.equals(readFileSync(join(node2, 'backups', 'far', backup.file)))).to.equal(true)
      const world = join(tempDir(), 'castle.mcworld')
      writeFileSync(world, downloaded)
      expect(await cliInOk(panel, ['server', 'import', 'far', world])).to.match(/import/i)

      // Each change is node2's fact, taken into the manager's log once.
      const writes = await factsOf(panel, 'after_file_write')
      expect(writes.map((e) => (e.payload as { origin?: { host: string } }).origin?.host)).to.deep.equal([
        'node2',
        'node2',
      ])
      expect(await factsOf(panel, 'after_file_upload')).to.have.length(1)
    } finally {
      events.close()
      await stop(agent)
      await stop(manager)
    }
  })

  it("a host takes the manager's settings of how servers run, when it joins and at each change, and keeps its own paths", async () => {
    const machines = await twoMachines()
    const { broker, panel, node2, manager, events } = machines
    let agent = machines.agent
    const setting = async (dir: string, key: string) =>
      JSON.parse(await cliInOk(dir, ['setting', 'get', key, '--json']))
    try {
      // A change while node2 is online reaches it.
      const here = (await BridgeClient.connect(node2)) as BridgeClient
      const taken = nextEvent(here, 'after_setting_update', (p) => p.key === 'servers.restart.max_restarts')
      await cliInOk(panel, ['setting', 'set', 'servers.restart.max_restarts', '9'])
      await taken
      here.close()
      expect(await setting(node2, 'servers.restart.max_restarts')).to.equal(9)
      // A server of node2's set to autostart: node2's agent starts it when it starts (it loads no plugins).
      await cliInOk(panel, ['server', 'add', 'auto', '--dir', fakeBedrockDir(), '--host', 'node2'])
      await cliInOk(panel, ['server', 'config', 'auto', 'autostart', 'true'])
      // Changes while it is away reach it when it joins again; a path of this machine does not.
      await stop(agent)
      await cliInOk(panel, ['setting', 'set', 'retention.backups', '4'])
      await cliInOk(panel, ['setting', 'set', 'paths.backups', join(tempDir(), 'panel-backups')])
      agent = spawnCli(node2, ['agent', 'start', '--nats', broker.url, '--name', 'node2'], AGENT_ENV)
      await waitForLine(agent, /^ready/)
      const joined = await firstFact(node2, 'after_setting_update', (p) => p.key === 'retention.backups')
      expect(joined).to.include({ key: 'retention.backups', value: 4 })
      expect(await setting(node2, 'paths.backups')).to.not.contain('panel-backups')
      const started = await firstFact(node2, 'after_server_start', (p) => p.serverName === 'auto')
      expect(started.result).to.deep.include({ status: 'success' })
      await cliInOk(panel, ['server', 'stop', 'auto'])
    } finally {
      events.close()
      await stop(agent)
      await stop(manager)
    }
  })

  it('a host whose data directory is made again is taken in from the start of its new log, not from where its old one was', async () => {
    const machines = await twoMachines()
    const { broker, panel, manager, events } = machines
    let agent = machines.agent
    try {
      await cliInOk(panel, ['server', 'add', 'far', '--dir', fakeBedrockDir(), '--host', 'node2'])
      await cliInOk(panel, ['server', 'start', 'far'])
      await cliInOk(panel, ['server', 'stop', 'far'])
      const before = (await BridgeClient.connect(panel)) as BridgeClient
      const { seq: cursor, log } = (await before.request('events:origin', { origin: 'node2' }, 'cli:test')) as {
        seq: number
        log: string
      }
      before.close()
      expect(log).to.be.a('string')
      // node2 is set up again on a new data directory, under the same name.
      const offline = nextEvent(events, 'nats:host_offline')
      await stop(agent)
      await offline
      const fresh = gameDataDir()
      const online = nextEvent(events, 'nats:host_online')
      agent = spawnCli(fresh, ['agent', 'start', '--nats', broker.url, '--name', 'node2'], AGENT_ENV)
      await online
      await cliInOk(fresh, ['server', 'add', 'again', '--dir', fakeBedrockDir()])
      const added = await firstFact(panel, 'servers:added', (p) => (p.server as { name: string }).name === 'again')
      const origin = added.origin as { host: string; seq: number }
      expect(origin.host).to.equal('node2')
      expect(origin.seq).to.be.lessThan(cursor) // behind where the old log was: taken in all the same
      const listed = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
      expect(listed.map((s: { name: string; host: string }) => [s.name, s.host])).to.deep.include(['again', 'node2'])
    } finally {
      events.close()
      await stop(agent)
      await stop(manager)
    }
  })

  it('a server on a host that is gone is unknown, and its commands fail at once naming the host; what the host recorded meanwhile comes in when it is back', async () => {
    const machines = await twoMachines()
    const { broker, panel, node2 } = machines
    let { manager, events, agent } = machines
    try {
      await cliInOk(panel, ['server', 'add', 'far', '--dir', fakeBedrockDir(), '--host', 'node2'])
      await cliInOk(panel, ['server', 'start', 'far'])

      // The host's agent stops: the game runs on; the manager shows it unknown and refuses at once.
      const offline = nextEvent(events, 'nats:host_offline')
      expect(await stop(agent)).to.equal(0)
      await offline
      const [far] = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
      expect(far).to.include({ status: 'unknown' })
      expect(far.since).to.be.a('string')
      const refused = await cliIn(panel, ['server', 'status', 'far'])
      expect(refused.code).to.equal(69)
      expect(refused.stderr).to.contain('SM_ERR_HOST_UNREACHABLE').and.to.contain("Host 'node2'")

      // The manager stops too; meanwhile node2's game crashes and node2's agent, back, records it.
      events.close()
      await stop(manager)
      // With no manager running, a CLI's own process is on no broker: it refuses, never acts here.
      const alone = await cliIn(panel, ['server', 'start', 'far'])
      expect(alone.code).to.equal(69)
      expect(alone.stderr).to.contain('SM_ERR_HOST_UNREACHABLE').and.to.contain('no manager on the NATS broker runs')
      agent = spawnCli(node2, ['agent', 'start', '--nats', broker.url, '--name', 'node2'], AGENT_ENV)
      await waitForLine(agent, /^ready/)
      const game = runState(node2, 'far')?.game?.pid as number
      await killAndWait([game])
      const recorded = await firstFact(node2, 'after_server_crash')

      // The manager comes back: the crash reaches its log once, with the time it happened.
      manager = await spawnManager(panel, ['--nats', broker.url])
      await waitForLine(manager, /^NATS: on the broker/)
      events = (await BridgeClient.connect(panel)) as BridgeClient
      const taken = await firstFact(panel, 'after_server_crash')
      expect(taken.origin).to.deep.include({ host: 'node2', seq: recorded.seq })
      expect(taken.at).to.equal(recorded.at)
      expect(await factsOf(panel, 'after_server_crash')).to.have.length(1)

      // node2 is retired for good: its server cannot be removed there, but it can be forgotten here
      // (not while node2 is online: removed normally, it would go there too).
      const early = await cliIn(panel, ['server', 'remove', 'far', '--forget'])
      expect(early.code).to.equal(75)
      expect(early.stderr).to.contain('SM_ERR_SERVER_FORGET_REFUSED').and.to.contain('that host is online')
      const gone = nextEvent(events, 'nats:host_offline')
      expect(await stop(agent)).to.equal(0)
      await gone
      const remove = await cliIn(panel, ['server', 'remove', 'far'])
      expect(remove.code).to.equal(69)
      expect(remove.stderr).to.contain('SM_ERR_HOST_UNREACHABLE')
      expect(await cliInOk(panel, ['server', 'remove', 'far', '--forget'])).to.contain(
        "Server 'far' forgotten: this manager no longer lists it; on host 'node2' it, its files and its game, if that runs, stay as they were. If that host comes back, stop and remove it there: server-manager server stop far; server-manager server remove far (on that machine).",
      )
      expect(JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))).to.deep.equal([])
      expect(runState(node2, 'far')?.status).to.equal('running')
    } finally {
      events.close()
      await stop(agent)
      await stop(manager)
    }
  })

  it("takes nothing from a host but its servers' facts, as that host's, at times it could know: every forged fact is refused with its code", async () => {
    const broker = await startBroker({ manager: MANAGER_PERMISSIONS, node2: NODE2 })
    const panel = gameDataDir()
    await cliInOk(panel, ['setting', 'set', 'nats.user', 'manager'])
    await cliInOk(panel, ['setting', 'set', 'nats.password', 'manager-password'])
    // The manager's own server, with a schedule of its own.
    await cliInOk(panel, ['server', 'add', 'loc1', '--dir', fakeBedrockDir()])
    const own = JSON.parse(
      await cliInOk(panel, [
        'server',
        'schedule',
        'add',
        'loc1',
        '--cron',
        '0 4 * * *',
        '--action',
        'restart',
        '--json',
      ]),
    )
    const manager = await spawnManager(panel, ['--nats', broker.url])
    // A hostile "node2": its own credentials, its own subjects, lies in its answers.
    const fake = await connect({
      servers: broker.url,
      user: 'node2',
      pass: 'node2-password',
      inboxPrefix: '_INBOX.agent.node2',
    })
    try {
      await waitForLine(manager, /^NATS: on the broker/)
      const now = new Date().toISOString()
      const fact = (type: string, payload: object, extra: { actor?: string; time?: string } = {}) => ({
        type,
        actor: extra.actor ?? 'http:admin',
        time: extra.time ?? now,
        payload,
      })
      const ok = { status: 'success' }
      const mine = {
        name: 'mine',
        dir: fakeBedrockDir(),
        profile: 'bedrock',
        command: './bedrock_server',
        args: [],
        env: {},
        stopCommand: 'stop',
        addedAt: now,
      }
      const forged = [
        // Kinds a host does not record.
        fact('manager:stop_requested', { by: 'node2' }),
        fact('after_setting_update', { key: 'web.port', value: 1, result: ok }),
        fact('servers:console', { serverName: 'mine', line: 'a live line is no fact' }),
        // A name `server add` refuses.
        fact('servers:added', { server: { ...mine, name: '../pwn' } }),
        // Its own new server, said to be added by an admin: taken in, as node2's word.
        fact('servers:added', { server: mine }),
        // The manager's own server: a schedule that ops Steve every second, its schedule removed, it removed.
        fact('servers:schedule_added', {
          schedule: {
            id: 'evil',
            server: 'loc1',
            cron: '* * * * * *',
            action: 'command',
            command: 'op Steve',
            addedAt: now,
          },
        }),
        fact('servers:schedule_removed', { id: own.id, server: 'loc1' }),
        fact('servers:removed', { name: 'loc1', filesDeleted: true }),
        // A decoy: its own server's name beside the one the fact is about.
        fact('servers:removed', { name: 'loc1', serverName: 'mine', filesDeleted: false }),
        fact('after_server_stop', { serverName: 'mine', name: 'loc1', reason: 'stop', result: ok }),
        fact('after_server_stop', { serverName: 'mine', server: 'loc1', reason: 'stop', result: ok }),
        // A server nobody holds.
        fact('after_server_start', { serverName: 'ghost', mode: 'detached', result: ok }),
        // Times it could not know: before its server was added, in the future.
        fact('after_server_crash', {
          serverName: 'mine',
          exitCode: 1,
          signal: null,
          at: '1999-01-01T00:00:00.000Z',
          restarts: 0,
          willRestart: false,
          result: ok,
        }),
        fact(
          'after_command_send',
          { serverName: 'mine', command: 'list', result: ok },
          { time: '1999-01-01T00:00:00.000Z' },
        ),
        fact(
          'after_command_send',
          { serverName: 'mine', command: 'list', result: ok },
          { time: new Date(Date.now() + 3_600_000).toISOString() },
        ),
        // Its own server's schedule and a command sent to it: taken in.
        fact('servers:schedule_added', {
          schedule: { id: 'daily', server: 'mine', cron: '0 4 * * *', action: 'restart', addedAt: now },
        }),
        fact('after_command_send', { serverName: 'mine', command: 'list', result: ok }, { actor: 'core' }),
      ].map((event, i) => ({ seq: i + 1, ...event }))
      // It answers the manager's ping before each request, as a host does.
      fake.subscribe('sm.agent.node2.ping', { callback: (_e, m) => void m.respond('') })
      const asked = new Promise<void>((resolve) => {
        fake.subscribe('sm.agent.node2.req.events.read', {
          callback: (_e, m) => {
            m.respond(JSON.stringify({ ok: true, value: forged }))
            resolve()
          },
        })
      })
      const beat = fakeHostBeat('node2', now, forged.length)
      await fake.flush()
      fake.publish('sm.agent.node2.hb', JSON.stringify(beat))
      await asked
      // The cursor moved past everything it sent: the manager runs on, as it was, but for node2's own.
      const client = (await BridgeClient.connect(panel)) as BridgeClient
      try {
        for (;;)
          if (
            ((await client.request('events:origin', { origin: 'node2' }, 'cli:test')) as { seq: number }).seq ===
            forged.length
          )
            break
      } finally {
        client.close()
      }
      expect(JSON.parse(await cliInOk(panel, ['status', '--json']))).to.include({ running: true })
      const taken = (JSON.parse(await cliInOk(panel, ['events', '--json', '--limit', '1000'])) as StoredEvent[]).filter(
        (e) => (e.payload as { origin?: unknown }).origin !== undefined,
      )
      expect(taken.map((e) => [e.type, e.actor, (e.payload as { origin: { seq: number } }).origin.seq])).to.deep.equal([
        ['servers:added', 'host:node2/http:admin', 5],
        ['servers:schedule_added', 'host:node2/http:admin', 16],
        ['after_command_send', 'host:node2/core', 17],
      ])
      const servers = JSON.parse(await cliInOk(panel, ['server', 'list', '--json']))
      expect(servers.map((s: { name: string; host?: string }) => [s.name, s.host])).to.deep.equal([
        ['loc1', undefined],
        ['mine', 'node2'],
      ])
      expect(
        JSON.parse(await cliInOk(panel, ['server', 'schedule', 'list', 'loc1', '--json'])).map(
          (s: { id: string }) => s.id,
        ),
      ).to.deep.equal([own.id])
      // Each refusal is in the manager's log with its code and why.
      const log = readFileSync(join(panel, 'logs', 'server-manager.log'), 'utf8')
      const refusals = log.split('\n').filter((line) => line.includes('[SM_ERR_BRIDGE_HOST_FACT_REFUSED] A fact'))
      expect(refusals.length).to.equal(10) // the first ten of the page, one by one
      expect(log).to.contain("and 4 more facts of host 'node2' were refused")
      expect(refusals.join('\n'))
        .to.contain("#1, manager:stop_requested) was refused: a host does not record 'manager:stop_requested'")
        .and.to.contain("#6, servers:schedule_added) was refused: the server 'loc1' is not one of host 'node2'")
        .and.to.contain("'serverName', which 'servers:removed' does not declare")
        .and.to.contain("its 'name' names a server where a 'after_server_stop' names none")
    } finally {
      await fake.close()
      await stop(manager)
    }
  })
})

/**
 * The first `type` fact in the log of the manager (or host agent) on `dir`: read once the
 * subscription is in place (a request answered after it proves it), else the next one emitted.
 */
async function firstFact(
  dir: string,
  type: string,
  matches: (payload: Record<string, unknown>) => boolean = () => true,
): Promise<Record<string, unknown>> {
  const client = (await BridgeClient.connect(dir)) as BridgeClient
  try {
    const emitted = new Promise<Record<string, unknown>>((resolve) => {
      client.on(type, (payload, meta) => {
        if (matches(payload as Record<string, unknown>)) resolve({ ...(payload as object), seq: meta.seq })
      })
    })
    await client.request('manager:status', {}, 'cli:test')
    const read = (await client.request('events:read', { types: [type], limit: 1000 }, 'cli:test')) as StoredEvent[]
    const first = read.find((event) => matches(event.payload as Record<string, unknown>))
    return first ? { ...(first.payload as object), seq: first.seq } : await emitted
  } finally {
    client.close()
  }
}
