import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir, runState, untilStatus } from '../../helpers/game'
import { spawnCli, waitForLine } from '../../helpers/run'

interface Fact {
  seq: number
  time: string
  type: string
  payload: { serverName: string; status?: string; previousStatus?: string; at: string; journalSeq?: number } & Record<
    string,
    unknown
  >
}

/** Kills the game with -9 and resolves once its supervisor has it running again (a new process). */
async function crashAndRestart(data: string): Promise<void> {
  const pid = runState(data, 's1')?.game?.pid as number
  const back = untilStatus(data, 's1', (e) => {
    const state = runState(data, 's1')
    return e.status === 'running' && state?.status === 'running' && state.game?.pid !== pid
  })
  process.kill(pid, 'SIGKILL')
  await back
}

describe('services/servers: the log shows what supervisors saw with no manager running (issue 18 item 27)', function () {
  this.timeout(60_000)

  it('`events --json` shows a crash and restart that happened with no manager, with no status command in between, in journal order and with the time each happened', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.delay_ms', '0'])
    await cliInOk(data, ['server', 'start', 's1'])
    await crashAndRestart(data)

    // Nothing has looked at s1 since: the read itself records what its supervisor saw.
    const facts = JSON.parse(
      await cliInOk(data, ['events', '--json', '--type', 'after_server_*', '--limit', '1000']),
    ) as Fact[]
    const crashes = facts.filter((f) => f.type === 'after_server_crash')
    expect(crashes).to.have.length(1)
    expect(crashes[0]?.payload).to.include({ serverName: 's1', signal: 'SIGKILL', willRestart: true })
    const changes = facts.filter((f) => f.type === 'after_server_status_change').map((f) => f.payload)
    expect(changes.map((c) => `${c.previousStatus}>${c.status}`)).to.deep.equal([
      'stopped>starting',
      'starting>running',
      'running>crashed',
      'crashed>starting',
      'starting>running',
    ])
    expect(changes.map((c) => c.journalSeq)).to.deep.equal([1, 2, 3, 4, 5])
    // Each carries the time it happened, never after it was recorded, in the order it happened.
    const observed = facts.filter((f) => f.type === 'after_server_status_change' || f.type === 'after_server_crash')
    for (const fact of observed) expect(Date.parse(fact.payload.at)).to.be.at.most(Date.parse(fact.time))
    const happened = changes.map((c) => Date.parse(c.at))
    expect(happened).to.deep.equal([...happened].sort((a, b) => a - b))
    // Read once: a second read records nothing again.
    const again = JSON.parse(await cliInOk(data, ['events', '--json', '--type', 'after_server_*', '--limit', '1000']))
    expect(again).to.deep.equal(facts)
    const text = await cliInOk(data, ['events', '--type', 'after_server_crash'])
    expect(text).to.match(/after_server_crash .*"signal":"SIGKILL"/)
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('`events --follow` with no manager prints a crash as its supervisor records it', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.delay_ms', '0'])
    await cliInOk(data, ['server', 'start', 's1'])
    const follow = spawnCli(data, ['events', '--follow', '--json', '--type', 'after_server_*'])
    try {
      await waitForLine(follow, /"status":"running"/)
      const crash = waitForLine(follow, /"type":"after_server_crash"/)
      await crashAndRestart(data)
      expect(JSON.parse(await crash).payload).to.include({ serverName: 's1', signal: 'SIGKILL' })
    } finally {
      follow.kill('SIGKILL')
    }
    await cliInOk(data, ['server', 'stop', 's1'])
  })
})

describe('services/cli: an event line says when an observed fact happened', () => {
  it('prints "(happened <time>)" when it happened in another second than it was recorded', () => {
    const { formatEvent } = require('../../../services/cli/format') as typeof import('../../../services/cli/format')
    const base = { seq: 7, actor: 'cli:root', type: 'after_server_crash' }
    const late = formatEvent({ ...base, time: '2026-01-31T12:05:00.123Z', payload: { at: '2026-01-31T12:00:01.500Z' } })
    expect(late).to.match(
      /^#7 {2}2026-01-31 12:05:00Z {2}cli:root {2}after_server_crash {2}\(happened 2026-01-31 12:00:01Z\) {2}\{/,
    )
    const live = formatEvent({ ...base, time: '2026-01-31T12:00:01.900Z', payload: { at: '2026-01-31T12:00:01.500Z' } })
    expect(live).not.to.contain('happened')
  })
})
