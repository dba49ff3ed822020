import { existsSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { spawnSupervisor } from '../../../services/servers/supervisor/client'
import { RunFiles, type StatusEntry } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import {
  alive,
  exited,
  fakeBedrockDir,
  gameDataDir,
  runState,
  statusJson,
  untilGone,
  untilStatus,
} from '../../helpers/game'
import { startManager } from '../../helpers/manager'
import { cli, spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

const UNSEEN = 'its process ended while no supervisor watched it'

/** The status as `server status --json` prints it (its exit code checked against the status it printed). */
const look = (data: string, name = 's1') => statusJson(data, name)

/** The supervisor killed, then the game: an end nobody sees. Answers the game's PID. */
async function crashUnseen(data: string, name = 's1'): Promise<number> {
  const state = runState(data, name)
  const supervisor = state?.supervisor?.pid as number
  const game = state?.game?.pid as number
  process.kill(supervisor, 'SIGKILL')
  await untilGone(supervisor)
  process.kill(game, 'SIGKILL')
  await untilGone(game)
  return game
}

function journal(data: string, name = 's1'): StatusEntry[] {
  return RunFiles.of(data, name).readJournal()
}

/** The journal from `seq` on, each entry as `status (reason)` plus its crash verdict. */
function since(data: string, seq: number): string[] {
  return journal(data)
    .filter((e) => e.seq > seq)
    .map((e) => {
      const verdict = e.status === 'crashed' ? ` restarts=${e.restarts} willRestart=${e.willRestart}` : ''
      return `${e.status} (${e.reason?.replace(/PID \d+/, 'PID n')})${verdict}`
    })
}

/** Waits for the restarted game to be running, and checks that it was found crashed and restarted once. */
async function restartedOnce(data: string, before: number): Promise<void> {
  await untilStatus(data, 's1', (e) => e.status === 'running')
  expect(since(data, before)).to.deep.equal([
    `crashed (${UNSEEN}) restarts=1 willRestart=true`,
    'starting (restart 1 of 3 after a crash)',
    'running (ready)',
  ])
}

async function crashFacts(data: string) {
  const facts = JSON.parse(await cliInOk(data, ['events', '--type', 'after_server_crash', '--json', '--limit', '100']))
  return (facts as { payload: { serverName: string; restarts: number; willRestart: boolean } }[]).map(
    ({ payload: { serverName, restarts, willRestart } }) => ({ serverName, restarts, willRestart }),
  )
}

/** A started fake Bedrock server `s1` with its own restart settings. */
async function started(data: string, settings: Record<string, string> = {}, env: Record<string, string> = {}) {
  await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env })])
  for (const [key, value] of Object.entries(settings)) await cliInOk(data, ['server', 'config', 's1', key, value])
  await cliInOk(data, ['server', 'start', 's1'])
  return journal(data).at(-1)?.seq as number
}

describe('services/servers: the restart policy applies to a crash when it is found (issue 19 item 7)', function () {
  this.timeout(60_000)

  it('a manager that starts finds a crash that happened while nobody watched and restarts it, once', async () => {
    const data = gameDataDir()
    const before = await started(data)
    const old = await crashUnseen(data)
    const manager = await spawnManager(data)
    // Its start (reconcile) is over once it says it is ready: the restart was its own.
    await waitForLine(manager, /^ready in/)
    await restartedOnce(data, before)
    const status = await look(data)
    expect(status).to.include({ status: 'running', restarts: 1 })
    expect(status.pid).to.be.a('number').and.not.equal(old)
    expect(alive(status.pid)).to.equal(true)
    expect(await crashFacts(data)).to.deep.equal([{ serverName: 's1', restarts: 1, willRestart: true }])
    await cliInOk(data, ['server', 'stop', 's1'])
    expect(await stop(manager)).to.equal(0)
  })

  it('with restart disabled (its own setting) it is recorded crashed and left so, however often it is looked at', async () => {
    const data = gameDataDir()
    const before = await started(data, { 'restart.enabled': 'false' })
    await crashUnseen(data)
    for (let n = 0; n < 2; n++) expect(await look(data)).to.include({ status: 'crashed' })
    const state = runState(data, 's1')
    expect(state?.status).to.equal('crashed')
    expect(state?.supervisor).to.equal(undefined)
    expect(since(data, before)).to.deep.equal([`crashed (${UNSEEN}) restarts=0 willRestart=false`])
    expect((await crashFacts(data)).map((f) => f.willRestart)).to.deep.equal([false])
  })

  it('found by several at once (a manager starting and status commands), it is restarted exactly once', async () => {
    const data = gameDataDir()
    const before = await started(data)
    const old = await crashUnseen(data)
    const [manager, ...looks] = await Promise.all([
      spawnManager(data),
      ...[1, 2, 3].map(() => cli(data, ['server', 'status', 's1', '--json'])),
    ])
    // Each answered a status (its exit code says which: running 0, starting 4, crashed 1).
    for (const look of looks) expect(JSON.parse(look.stdout).status, look.stderr).to.be.a('string')
    await waitForLine(manager, /^ready in/)
    await restartedOnce(data, before)
    const status = await look(data)
    expect(status).to.include({ status: 'running', restarts: 1 })
    expect(status.pid).not.to.equal(old)
    expect(await crashFacts(data)).to.have.length(1)
    await cliInOk(data, ['server', 'stop', 's1'])
    expect(await stop(manager)).to.equal(0)
  })

  it('looked at by two at the same moment, past the first look at its files, it is restarted exactly once', async () => {
    const data = gameDataDir()
    const before = await started(data)
    await crashUnseen(data)
    // Two of the one-shot kind of process (a CLI without a manager), side by side in this one.
    const [one, two] = [await startManager({ dataDir: data }), await startManager({ dataDir: data })]
    try {
      const looks = await Promise.all([one, two].map((k) => k.bus.request('servers:status', { name: 's1' })))
      for (const look of looks) expect(look.status).to.match(/^(crashed|starting|running)$/)
    } finally {
      await one.stop()
      await two.stop()
    }
    await restartedOnce(data, before)
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('counts each restart toward restart.max_restarts across discoveries, and a run known to be long starts a new streak', async () => {
    const data = gameDataDir()
    const before = await started(data, { 'restart.max_restarts': '2', 'restart.min_uptime_s': '3600' })
    const pids = new Set<number>()
    for (let round = 0; round < 2; round++) {
      pids.add(await crashUnseen(data))
      expect((await look(data)).status).to.match(/starting|running/)
      await untilStatus(data, 's1', (e) => e.status === 'running')
    }
    pids.add(await crashUnseen(data))
    expect(await look(data)).to.include({ status: 'crashed', restarts: 2 })
    expect(since(data, before).filter((line) => !line.startsWith('running'))).to.deep.equal([
      `crashed (${UNSEEN}) restarts=1 willRestart=true`,
      'starting (restart 1 of 2 after a crash)',
      `crashed (${UNSEEN}) restarts=2 willRestart=true`,
      'starting (restart 2 of 2 after a crash)',
      `crashed (${UNSEEN}) restarts=2 willRestart=false`,
    ])
    expect((await crashFacts(data)).map((f) => [f.restarts, f.willRestart])).to.deep.equal([
      [1, true],
      [2, true],
      [2, false],
    ])
    expect(pids.size).to.equal(3)

    // Started again by hand (a new streak), it crashes unseen after its log shows it lived an hour.
    await cliInOk(data, ['server', 'start', 's1'])
    const seq = journal(data).at(-1)?.seq as number
    const game = runState(data, 's1')?.game
    await crashUnseen(data)
    const hourLater = (Date.parse(game?.startedAt as string) + 3_601_000) / 1000
    utimesSync(RunFiles.of(data, 's1').log, hourLater, hourLater)
    expect((await look(data)).status).to.match(/starting|running/)
    expect(since(data, seq)[0]).to.equal(`crashed (${UNSEEN}) restarts=1 willRestart=true`)
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('a start of a server whose crash nobody saw starts it (it was answered as already running)', async () => {
    const data = gameDataDir()
    const before = await started(data, { 'restart.enabled': 'false' })
    await crashUnseen(data)
    const start = await cliIn(data, ['server', 'start', 's1'])
    expect(start.code, start.stderr).to.equal(0)
    expect(start.stdout).to.match(/Server 's1' is running/)
    expect(since(data, before)).to.deep.equal([
      `crashed (${UNSEEN}) restarts=0 willRestart=false`,
      'starting (started (PID n))',
      'running (ready)',
    ])
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('one that ended while it was being stopped is recorded stopped, and not restarted', async () => {
    const data = gameDataDir()
    const gate = join(tempDir(), 'stop.gate')
    const before = await started(data, {}, { FAKE_STOP_GATE: gate })
    const stopping = spawnCli(data, ['server', 'stop', 's1'])
    await untilStatus(data, 's1', (e) => e.status === 'stopping')
    await crashUnseen(data)
    await exited(stopping)
    expect(await look(data)).to.include({ status: 'stopped' })
    const state = runState(data, 's1')
    expect([state?.status, state?.supervisor, state?.game]).to.deep.equal(['stopped', undefined, undefined])
    expect(since(data, before)).to.deep.equal([
      'stopping (stop requested)',
      'stopped (its process ended while it was being stopped, with no supervisor watching it)',
    ])
    expect(await crashFacts(data)).to.deep.equal([])
  })

  it('a supervisor started to adopt a game that has ended meanwhile starts nothing: the look after finds the crash and applies the policy, once', async () => {
    const data = gameDataDir()
    const before = await started(data)
    const old = await crashUnseen(data)
    const files = RunFiles.of(data, 's1')
    // What a client that saw the game alive a moment ago asks for: an adoption, nothing else.
    const announced = await spawnSupervisor(files, 's1', 'adopt')
    expect(announced.ok).to.equal(false)
    expect(announced.ok ? undefined : announced.error.code).to.equal('SM_ERR_SERVER_NOT_RUNNING')
    expect(runState(data, 's1')).to.deep.include({ status: 'running' })
    expect(runState(data, 's1')?.game?.pid).to.equal(old)
    expect(existsSync(files.socket)).to.equal(false)
    expect(since(data, before)).to.deep.equal([])
    // Found by the next look, as any crash nobody saw.
    await look(data)
    await restartedOnce(data, before)
    expect(await crashFacts(data)).to.deep.equal([{ serverName: 's1', restarts: 1, willRestart: true }])
    await cliInOk(data, ['server', 'stop', 's1'])
  })
})
