import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { factsOf, managerEvent } from '../../helpers/facts'
import { fakeBedrockDir, gameDataDir, runState, statusJson, untilGone } from '../../helpers/game'
import { spawnManager, stop, waitForLine } from '../../helpers/run'

const OBSERVED = 'after_server_status_change,after_server_crash,after_player_join,after_player_leave'

/** The actors of the observed facts, by type, in order. */
async function observedActors(dataDir: string): Promise<[string, string][]> {
  return (await factsOf(dataDir, OBSERVED)).map((e) => [e.type, e.actor])
}

describe("services/servers: observed facts are the game's, not the CLI's that looked (issue 32, item 4)", function () {
  this.timeout(120_000)

  it('status changes, crashes, joins and leaves carry server:<name>, whoever started the server or looked; the start stays the CLI user', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])

    // No manager: the CLI's start and its look at a crash record them.
    await cliInOk(data, ['server', 'start', 's1'])
    const game = runState(data, 's1')?.game?.pid as number
    process.kill(game, 'SIGKILL')
    await untilGone(game)
    expect((await statusJson(data, 's1')).status).to.equal('crashed')
    expect(await observedActors(data)).to.deep.equal([
      ['after_server_status_change', 'server:s1'],
      ['after_server_status_change', 'server:s1'],
      ['after_server_status_change', 'server:s1'],
      ['after_server_crash', 'server:s1'],
    ])

    // The manager: started by the CLI, a join, a stop that ends the session.
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in/)
      await cliInOk(data, ['server', 'start', 's1'])
      await managerEvent<{ name: string }>(
        data,
        'after_player_join',
        (p) => p.name === 'Steve',
        () => cliInOk(data, ['server', 'send', 's1', 'fakejoin', 'Steve', '2535412345678901']),
      )
      await cliInOk(data, ['server', 'stop', 's1'])
      const actors = await observedActors(data)
      expect(actors.map(([type]) => type).slice(4)).to.include.members([
        'after_server_status_change',
        'after_player_join',
        'after_player_leave',
      ])
      expect(actors.filter(([, actor]) => actor !== 'server:s1')).to.deep.equal([])
      const starts = await factsOf(data, 'after_server_start')
      expect(starts.map((e) => e.actor)).to.satisfy(
        (all: string[]) => all.length === 2 && all.every((a) => /^cli:/.test(a)),
      )
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })
})
