import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { parsePlayerList } from '../../../services/servers/player-list'
import { BUILT_IN_PROFILES } from '../../../services/servers/profiles'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { factsOf } from '../../helpers/facts'
import { fakeBedrockDir, fakeJavaDir, gameDataDir, nextLine, runState, untilGone } from '../../helpers/game'
import { plugin, writePlugins } from '../../helpers/plugins'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'
import { adminSession, webUrl } from '../../helpers/web-process'

const XUID = '2535412345678901'
const UUID = '069a79f4-44e9-4726-a5be-fca90e38aaf5'

/** A plugin that appends every player hook it gets to `file`, one JSON line each. */
function recorder(file: string): string {
  const write = (hook: string) =>
    `require('node:fs').appendFileSync(${JSON.stringify(file)}, JSON.stringify({ hook: '${hook}', ...p }) + '\\n')`
  return plugin(
    'Recorder',
    `afterPlayerJoin(p) { ${write('join')} }
    afterPlayerLeave(p) { ${write('leave')} }`,
  )
}

async function json(dataDir: string, args: string[]) {
  return JSON.parse(await cliInOk(dataDir, [...args, '--json']))
}

/** The same, in-process against the manager that runs on `dataDir`. */
async function jsonIn(dataDir: string, args: string[]) {
  return JSON.parse(await cliInOk(dataDir, [...args, '--json']))
}

async function facts(dataDir: string, type: string) {
  return (await factsOf(dataDir, type)).map((e) => e.payload)
}

/** A manager on `dataDir`, ready, with its web URL and an admin's session. */
async function managerOf(dataDir: string) {
  const manager = await spawnManager(dataDir)
  const [url] = await Promise.all([webUrl(manager), waitForLine(manager, /^ready in/)])
  return { manager, url, session: await adminSession(dataDir, url) }
}

describe('services/servers: reading a list reply', () => {
  const { bedrock, java, generic } = BUILT_IN_PROFILES

  it("reads Bedrock's counts, and its names from the next line (names may hold spaces)", () => {
    const head = '[2024-01-01 00:00:00:000 INFO] There are 2/10 players online:'
    expect(parsePlayerList(bedrock, [head, 'Sneezy Puma, Alex'])).to.deep.equal({
      online: 2,
      max: 10,
      names: ['Sneezy Puma', 'Alex'],
    })
    const empty = '[2024-01-01 00:00:00:000 INFO] There are 0/10 players online:'
    expect(parsePlayerList(bedrock, [empty, ''])).to.deep.equal({ online: 0, max: 10, names: [] })
  })

  it('reads vanilla and Paper lines, the names on the same line', () => {
    const vanilla = '[12:00:00] [Server thread/INFO]: There are 0 of a max of 20 players online: '
    expect(parsePlayerList(java, [vanilla])).to.deep.equal({ online: 0, max: 20, names: [] })
    const paper = '[12:00:00 INFO]: There are 2 of a max of 20 players online: Notch, jeb_'
    expect(parsePlayerList(java, [paper])).to.deep.equal({ online: 2, max: 20, names: ['Notch', 'jeb_'] })
  })

  it('finds no list in a reply that is not one, nor for a profile that cannot tell', () => {
    expect(parsePlayerList(java, ['[12:00:00] [Server thread/INFO]: Unknown or incomplete command'])).to.equal(
      undefined,
    )
    expect(parsePlayerList(generic, ['There are 1/10 players online:', 'Steve'])).to.equal(undefined)
  })
})

describe('services/servers: players, joins and leaves', function () {
  this.timeout(90_000)

  it('bedrock: a join and a leave show in server players, status, list and the API, as facts and in plugin hooks; a crash ends the sessions', async () => {
    const data = gameDataDir()
    const hooks = join(tempDir(), 'hooks.jsonl')
    writeFileSync(hooks, '')
    writePlugins(data, { 'recorder.ts': recorder(hooks) })
    const { manager, url, session } = await managerOf(data)
    try {
      // Set up through the running manager: its plugin manager loads the plugins there.
      await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
      await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
      await cliInOk(data, ['setting', 'set', 'plugins.dev_examples', 'true'])
      await cliInOk(data, ['plugin', 'enable', 'recorder'])
      await cliInOk(data, ['plugin', 'enable', 'welcome'])
      await cliInOk(data, ['server', 'start', 's1'])
      expect(await jsonIn(data, ['server', 'players', 's1'])).to.deep.equal({ online: 0, max: 10, names: [] })

      const joined = nextLine(hooks, /"hook":"join"/)
      const welcomed = nextLine(RunFiles.of(data, 's1').log, /\[Server\] Welcome, Steve!/)
      await cliInOk(data, ['server', 'send', 's1', 'fakejoin', 'Steve', XUID])
      expect(JSON.parse(await joined)).to.deep.equal({
        hook: 'join',
        serverName: 's1',
        name: 'Steve',
        id: XUID,
        result: { status: 'success' },
      })
      await welcomed // the example plugin (docs/plugins.md) said so on the console

      expect(await jsonIn(data, ['server', 'players', 's1'])).to.deep.equal({ online: 1, max: 10, names: ['Steve'] })
      expect((await jsonIn(data, ['server', 'status', 's1'])).players).to.deep.equal({
        online: 1,
        max: 10,
        names: ['Steve'],
      })
      expect(await cliInOk(data, ['server', 'status', 's1'])).to.match(/^players {5}1 of 10: Steve$/m)
      expect(await cliInOk(data, ['server', 'list'])).to.match(
        /^NAME +PROFILE +STATUS +PID +PLAYERS +DIRECTORY\ns1 +bedrock +running +\d+ +1 +\//,
      )
      expect((await jsonIn(data, ['server', 'list']))[0].players).to.equal(1)
      expect(await facts(data, 'after_player_join')).to.deep.equal([
        { serverName: 's1', name: 'Steve', id: XUID, result: { status: 'success' } },
      ])

      const api = await http(`${url}/api/servers/s1`, { token: session })
      expect(api.json.run.players).to.deep.equal({ online: 1, max: 10, names: ['Steve'] })
      const listed = await http(`${url}/api/servers/s1/players`, { token: session })
      expect(listed.json).to.deep.equal({ status: 'success', players: { online: 1, max: 10, names: ['Steve'] } })
      expect((await http(`${url}/api/servers`, { token: session })).json.servers[0].players).to.equal(1)

      const left = nextLine(hooks, /"hook":"leave"/)
      await cliInOk(data, ['server', 'send', 's1', 'fakeleave', 'Steve'])
      expect(JSON.parse(await left)).to.deep.equal({
        hook: 'leave',
        serverName: 's1',
        name: 'Steve',
        id: XUID,
        reason: 'left',
        result: { status: 'success' },
      })
      expect((await jsonIn(data, ['server', 'status', 's1'])).players).to.deep.equal({ online: 0, max: 10, names: [] })

      // A game that dies ends everyone's session: a leave each, with why.
      const alexJoined = nextLine(hooks, /"name":"Alex"/)
      await cliInOk(data, ['server', 'send', 's1', 'fakejoin', 'Alex', '2535400000000002'])
      await alexJoined
      const ended = nextLine(hooks, /"reason":"server_crashed"/)
      const game = runState(data, 's1')?.game?.pid as number
      process.kill(game, 'SIGKILL')
      expect(JSON.parse(await ended)).to.deep.include({
        name: 'Alex',
        id: '2535400000000002',
        reason: 'server_crashed',
      })
      expect((await facts(data, 'after_player_leave')).map((p) => (p as { reason: string }).reason)).to.deep.equal([
        'left',
        'server_crashed',
      ])
      await untilGone(game)
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  it('java: joins carry the UUID printed before them; the leaves a stop prints are the only ones recorded', async () => {
    const data = gameDataDir()
    // Its EULA accepted, as an admin would (the manager refuses to start a java server otherwise).
    const { dir, java } = fakeJavaDir({ eula: true })
    const hooks = join(tempDir(), 'hooks.jsonl')
    writeFileSync(hooks, '')
    writePlugins(data, { 'recorder.ts': recorder(hooks) })
    const { manager } = await managerOf(data)
    try {
      await cliInOk(data, ['server', 'add', 'j1', '--dir', dir, '--profile', 'java', '--command', java])
      await cliInOk(data, ['plugin', 'enable', 'recorder'])
      await cliInOk(data, ['server', 'start', 'j1'])
      const joined = nextLine(hooks, /"name":"Notch"/)
      await cliInOk(data, ['server', 'send', 'j1', 'fakejoin', 'Notch', UUID])
      expect(JSON.parse(await joined)).to.deep.include({ hook: 'join', serverName: 'j1', name: 'Notch', id: UUID })
      const second = nextLine(hooks, /"name":"jeb_"/)
      await cliInOk(data, ['server', 'send', 'j1', 'fakejoin', 'jeb_', '853c80ef-3c37-49fd-aa49-938b674adae6'])
      await second
      expect((await jsonIn(data, ['server', 'status', 'j1'])).players).to.deep.include({
        online: 2,
        names: ['Notch', 'jeb_'],
      })
      expect(await jsonIn(data, ['server', 'players', 'j1'])).to.deep.equal({
        online: 2,
        max: 20,
        names: ['Notch', 'jeb_'],
      })

      const lastLeave = nextLine(hooks, /"hook":"leave","serverName":"j1","name":"jeb_"/)
      await cliInOk(data, ['server', 'stop', 'j1'])
      await lastLeave
      const leaves = (await facts(data, 'after_player_leave')) as { name: string; reason: string; id?: string }[]
      expect(leaves.map((l) => [l.name, l.reason, l.id])).to.deep.equal([
        ['Notch', 'left', UUID],
        ['jeb_', 'left', '853c80ef-3c37-49fd-aa49-938b674adae6'],
      ])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  it('without a manager, status invents no count and server players asks the game; a manager that finds it running lists it, recording no join', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_PLAYERS: 'Steve,Alex' } })])
    await cliInOk(data, ['server', 'start', 's1'])
    expect(await json(data, ['server', 'status', 's1'])).not.to.have.property('players')
    expect(await cliInOk(data, ['server', 'status', 's1'])).not.to.match(/players/)
    expect(await cliInOk(data, ['server', 'players', 's1'])).to.equal('s1: 2 of 10 online\n  Steve\n  Alex\n')

    const { manager } = await managerOf(data)
    try {
      // The manager asks once when it finds the game running; its tracker reads the reply.
      let status = await jsonIn(data, ['server', 'status', 's1'])
      while (!status.players) status = await jsonIn(data, ['server', 'status', 's1'])
      expect(status.players).to.deep.equal({ online: 2, max: 10, names: ['Steve', 'Alex'] })
      expect(await facts(data, 'after_player_join')).to.deep.equal([])
      await cliInOk(data, ['server', 'stop', 's1'])
      // A stop ends the sessions the game did not end itself (the fake prints no leaves).
      const leaves = (await facts(data, 'after_player_leave')) as { name: string; reason: string }[]
      expect(leaves.map((l) => [l.name, l.reason])).to.deep.equal([
        ['Steve', 'server_stopped'],
        ['Alex', 'server_stopped'],
      ])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  it('refuses with coded errors a server whose profile cannot tell, and one that is not running', async () => {
    const data = gameDataDir()
    const dir = join(tempDir(), 'generic')
    mkdirSync(dir)
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nwhile read -r line; do echo "got $line"; done\n', { mode: 0o755 })
    const { manager, url, session } = await managerOf(data)
    try {
      await cliInOk(data, ['server', 'add', 'g1', '--dir', dir, '--command', './run.sh'])
      await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
      const unknown = await cliIn(data, ['server', 'players', 'g1'])
      expect(unknown.stderr).to.contain('[SM_ERR_SERVER_PLAYERS_UNKNOWN]')
      expect(unknown.code).to.equal(69)
      const stopped = await cliIn(data, ['server', 'players', 's1'])
      expect(stopped.stderr).to.contain('[SM_ERR_SERVER_NOT_RUNNING]')
      expect(stopped.code).to.equal(75)
      await cliInOk(data, ['server', 'start', 'g1'])
      const refused = await http(`${url}/api/servers/g1/players`, { token: session })
      expect(refused.status).to.equal(422)
      expect(refused.json).to.include({ status: 'error', code: 'SM_ERR_SERVER_PLAYERS_UNKNOWN' })
      expect((await http(`${url}/api/servers/s1/players`, { token: session })).json).to.include({
        code: 'SM_ERR_SERVER_NOT_RUNNING',
      })
      expect(await jsonIn(data, ['server', 'status', 'g1'])).not.to.have.property('players')
      expect(readFileSync(RunFiles.of(data, 'g1').log, 'utf8')).not.to.match(/got list/)
      await cliInOk(data, ['server', 'kill', 'g1'])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })
})
