import { expect } from 'chai'
import type { PlayerRecord } from '../../../services/servers/contract'
import { cliInOk } from '../../helpers/cli-in-process'
import { factsOf, managerEvent } from '../../helpers/facts'
import { alive, fakeBedrockDir, gameDataDir, runState, untilGone } from '../../helpers/game'
import { spawnManager, stop, waitForLine } from '../../helpers/run'

const STEVE = '2535412345678901'
const ALEX = '2535400000000002'

async function historyOf(dataDir: string): Promise<Record<string, PlayerRecord>> {
  const players = JSON.parse(
    await cliInOk(dataDir, ['server', 'players', 's1', '--history', '--json']),
  ) as PlayerRecord[]
  return Object.fromEntries(players.map((p) => [p.name, p]))
}

/** The history once `name` is offline in it (the manager's look records it soon after its start). */
async function untilOffline(dataDir: string, name: string): Promise<Record<string, PlayerRecord>> {
  for (;;) {
    const history = await historyOf(dataDir)
    if (history[name]?.online === false) return history
  }
}

async function managerReady(dataDir: string) {
  const manager = await spawnManager(dataDir)
  await waitForLine(manager, /^ready in/)
  return manager
}

const span = (from: string, to: string) => Date.parse(to) - Date.parse(from)
const send = (dataDir: string, ...command: string[]) => cliInOk(dataDir, ['server', 'send', 's1', ...command])

describe('services/servers: players who left while no manager followed the game (issue 32, item 4)', function () {
  this.timeout(180_000)

  it('are offline from the next start of a manager stopped or killed meanwhile, last seen before it went down, the down time not played; those still online stay online', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    let manager = await managerReady(data)
    try {
      await cliInOk(data, ['server', 'start', 's1'])
      for (const [name, xuid] of [
        ['Steve', STEVE],
        ['Alex', ALEX],
      ] as const)
        await managerEvent<{ name: string }>(
          data,
          'after_player_join',
          (p) => p.name === name,
          () => send(data, 'fakejoin', name, xuid),
        )
      const joins = await factsOf(data, 'after_player_join')

      // Stopped: Steve leaves while it is down; Alex stays.
      expect(await stop(manager)).to.equal(0)
      const stoppedAt = new Date().toISOString()
      await send(data, 'fakeleave', 'Steve')
      manager = await managerReady(data)
      let history = await untilOffline(data, 'Steve')
      const steve = history.Steve as PlayerRecord
      expect(steve).to.deep.include({ online: false, joins: 1, firstSeen: joins[0]?.time })
      expect(Date.parse(steve.lastSeen)).to.be.within(Date.parse(joins[0]?.time as string), Date.parse(stoppedAt))
      expect(steve.playedMs).to.equal(span(joins[0]?.time as string, steve.lastSeen))
      expect(history.Alex).to.deep.include({ online: true, onlineSince: joins[1]?.time })
      const [unseen] = await factsOf(data, 'after_player_leave')
      expect(unseen?.payload).to.deep.include({ name: 'Steve', id: STEVE, reason: 'unseen', at: steve.lastSeen })
      expect(unseen?.actor).to.equal('server:s1')

      // Killed outright: Alex leaves while it is down.
      expect(await stop(manager, 'SIGKILL')).to.equal(null)
      const killedAt = new Date().toISOString()
      await send(data, 'fakeleave', 'Alex')
      manager = await managerReady(data)
      history = await untilOffline(data, 'Alex')
      const alex = history.Alex as PlayerRecord
      expect(Date.parse(alex.lastSeen)).to.be.within(Date.parse(joins[1]?.time as string), Date.parse(killedAt))
      expect(alex.playedMs).to.equal(span(joins[1]?.time as string, alex.lastSeen))
      // Steve's row is as it was: one session, closed once.
      expect(history.Steve).to.deep.equal(steve)

      // The log gives the same rows again.
      await cliInOk(data, ['db', 'rebuild'])
      expect(await historyOf(data)).to.deep.equal(history)
      await cliInOk(data, ['server', 'stop', 's1'])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  it('a game that ended while nobody watched ends its sessions when it was last known to live, not when the end was found', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    let manager = await managerReady(data)
    try {
      await cliInOk(data, ['server', 'start', 's1'])
      await managerEvent<{ name: string }>(
        data,
        'after_player_join',
        (p) => p.name === 'Steve',
        () => send(data, 'fakejoin', 'Steve', STEVE),
      )
      const [join] = await factsOf(data, 'after_player_join')
      expect(await stop(manager, 'SIGKILL')).to.equal(null)
      // Its supervisor, then its game: nobody sees it end.
      const state = runState(data, 's1')
      for (const pid of [state?.supervisor?.pid, state?.game?.pid] as number[]) {
        if (alive(pid)) process.kill(pid, 'SIGKILL')
        await untilGone(pid)
      }
      const endedBy = new Date().toISOString()
      manager = await managerReady(data)
      const history = await untilOffline(data, 'Steve')
      const crashed = (await factsOf(data, 'after_server_status_change'))
        .map((e) => e.payload as { status: string; at: string; lastKnown?: string })
        .find((p) => p.status === 'crashed')
      expect(crashed?.lastKnown).to.be.a('string')
      expect(Date.parse(crashed?.at as string)).to.be.above(Date.parse(endedBy))
      // The console log's last write (the join's line may be written a moment before its fact).
      const joined = join?.time as string
      const end =
        Date.parse(crashed?.lastKnown as string) > Date.parse(joined) ? (crashed?.lastKnown as string) : joined
      expect(history.Steve).to.deep.include({ online: false, lastSeen: end, playedMs: span(joined, end) })
      expect(Date.parse(end)).to.be.at.most(Date.parse(endedBy))
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })
})
