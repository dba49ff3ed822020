import { expect } from 'chai'
import type { PlayerRecord } from '../../../services/servers/contract'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { factsOf, managerEvent } from '../../helpers/facts'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { http, signIn } from '../../helpers/web'
import { webUrl } from '../../helpers/web-process'

const STEVE = '2535412345678901'
const ALEX = '2535400000000002'

async function historyOf(dataDir: string): Promise<Record<string, PlayerRecord>> {
  const players = JSON.parse(
    await cliInOk(dataDir, ['server', 'players', 's1', '--history', '--json']),
  ) as PlayerRecord[]
  return Object.fromEntries(players.map((p) => [p.name, p]))
}

const span = (from: string, to: string) => Date.parse(to) - Date.parse(from)

describe('services/servers: the player history (issue 20, item 3)', function () {
  this.timeout(120_000)

  it('keeps joins, time played and who is online across a restart of the server, in the CLI and the API, and a rebuild gives the same', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    // The first account of a data directory is its admin; ursula is a plain user after it.
    await cliInOk(data, ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'], {}, 'a boss password\n')
    const user = await cliIn(
      data,
      ['user', 'create', 'ursula', '--role', 'user', '--password-stdin'],
      {},
      'a user password\n',
    )
    expect(user.code, user.stderr).to.equal(0)
    const manager = await spawnManager(data)
    try {
      const [url] = await Promise.all([webUrl(manager), waitForLine(manager, /^ready in/)])
      await cliInOk(data, ['server', 'start', 's1'])
      const send =
        (...command: string[]) =>
        () =>
          cliInOk(data, ['server', 'send', 's1', ...command])
      const join = (name: string, xuid: string) =>
        managerEvent<{ name: string }>(data, 'after_player_join', (p) => p.name === name, send('fakejoin', name, xuid))
      const leave = (name: string) =>
        managerEvent<{ name: string }>(data, 'after_player_leave', (p) => p.name === name, send('fakeleave', name))

      await join('Steve', STEVE)
      await join('Alex', ALEX)
      await leave('Steve')
      let joins = await factsOf(data, 'after_player_join')
      let leaves = await factsOf(data, 'after_player_leave')
      const firstSession = span(joins[0]?.time as string, leaves[0]?.time as string)
      let history = await historyOf(data)
      expect(history.Steve).to.deep.include({ id: STEVE, online: false, joins: 1, playedMs: firstSession })
      expect(history.Steve).not.to.have.property('onlineSince')
      expect(history.Alex).to.deep.include({ id: ALEX, online: true, joins: 1, onlineSince: joins[1]?.time })

      // The game ends with Alex online: the session ends when it stopped; Steve comes back.
      await managerEvent<{ name: string }>(
        data,
        'after_player_leave',
        (p) => p.name === 'Alex',
        () => cliInOk(data, ['server', 'restart', 's1']),
      )
      await join('Steve', STEVE)
      joins = await factsOf(data, 'after_player_join')
      history = await historyOf(data)
      expect(history.Steve).to.deep.include({ online: true, joins: 2, onlineSince: joins[2]?.time })
      expect(history.Steve?.playedMs).to.be.at.least(firstSession)
      const stopped = (await factsOf(data, 'after_server_status_change')).find(
        (e) => (e.payload as { status: string }).status === 'stopped',
      )?.payload as { at: string }
      expect(history.Alex).to.deep.include({
        online: false,
        joins: 1,
        playedMs: span(joins[1]?.time as string, stopped.at),
      })

      await leave('Steve')
      leaves = await factsOf(data, 'after_player_leave')
      const steveLeft = leaves.filter((e) => (e.payload as { name: string }).name === 'Steve')
      history = await historyOf(data)
      expect(history.Steve).to.deep.include({
        online: false,
        joins: 2,
        firstSeen: joins[0]?.time,
        lastSeen: steveLeft[1]?.time,
        playedMs: firstSession + span(joins[2]?.time as string, steveLeft[1]?.time as string),
      })

      expect(await cliInOk(data, ['server', 'players', 's1', '--history'])).to.match(
        /^NAME +ID +ONLINE +JOINS +PLAYED +FIRST SEEN +LAST SEEN\n(Steve|Alex) /,
      )
      expect(await cliInOk(data, ['server', 'players', 's1', '--history'])).to.match(
        new RegExp(`^Steve +${STEVE} +no +2 +\\d`, 'm'),
      )
      // Any signed-in user may read it over the API.
      const token = await signIn(url, 'ursula', 'a user password')
      const api = await http(`${url}/api/servers/s1/players/history`, { token })
      expect(api.status, api.text).to.equal(200)
      expect(Object.fromEntries(api.json.players.map((p: PlayerRecord) => [p.name, p]))).to.deep.equal(history)

      // The log gives the same rows again.
      await cliInOk(data, ['db', 'rebuild'])
      expect(await historyOf(data)).to.deep.equal(history)

      // A removed server takes its history: one added again under its name starts with none.
      const dir = JSON.parse(await cliInOk(data, ['server', 'info', 's1', '--json'])).dir as string
      await cliInOk(data, ['server', 'stop', 's1'])
      await cliInOk(data, ['server', 'remove', 's1'])
      await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
      expect(await historyOf(data)).to.deep.equal({})
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  it('is empty for a server nobody joined, and refused for an unknown server', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    expect(await cliInOk(data, ['server', 'players', 's1', '--history', '--json'])).to.equal('[]\n')
    expect(await cliInOk(data, ['server', 'players', 's1', '--history'])).to.match(/^Nobody has joined 's1'/)
    const missing = await cliIn(data, ['server', 'players', 'nope', '--history'])
    expect([missing.code, missing.stderr]).to.satisfy(
      ([code, stderr]: [number, string]) => code === 66 && stderr.includes('[SM_ERR_SERVER_NOT_FOUND]'),
    )
  })
})
