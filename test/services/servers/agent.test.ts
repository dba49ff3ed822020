import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { setImmediate } from 'node:timers/promises'
import { expect } from 'chai'
import { isSameProcess } from '../../../lib/process-identity'
import { AgentClient } from '../../../services/servers/supervisor/client'
import { AgentFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { alive, exited, fakeBedrockDir, gameDataDir, runState, statusJson, untilGone } from '../../helpers/game'
import { cliOk, ROOT } from '../../helpers/run'

const SERVERS = ['s1', 's2', 's3']

/** The agent recorded for a data directory, while its process lives. */
function agentOf(data: string) {
  const record = new AgentFiles(data).readRecord()
  return record && isSameProcess(record.pid, record.identity) ? record : undefined
}

/** Resolves once every server's state names `pid` as its supervisor (the agent adopts them on its own). */
async function untilSupervisedBy(data: string, names: readonly string[], pid: number): Promise<void> {
  while (!names.every((name) => runState(data, name)?.supervisor?.pid === pid)) await setImmediate()
}

/** The processes running the agent's program for this data directory. */
function agentProcesses(data: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
  return out
    .split('\n')
    .filter((line) => line.includes('supervisor/agent.js') && line.includes(data))
    .map((line) => Number.parseInt(line.trim(), 10))
}

describe('services/servers: one host agent supervises every game of a data directory (issue 22 item 1)', function () {
  this.timeout(120_000)

  it('supervises games started at once from several processes in one agent process, and ends with the last game', async () => {
    const data = gameDataDir()
    for (const name of SERVERS) await cliInOk(data, ['server', 'add', name, '--dir', fakeBedrockDir()])
    // Started concurrently with no agent running: every starter finds none, one agent serves.
    await Promise.all(SERVERS.map((name) => cliOk(data, ['server', 'start', name])))
    const agent = agentOf(data)
    expect(agent, 'agent.json names a live agent').to.not.equal(undefined)
    for (const name of SERVERS) {
      expect(runState(data, name)?.supervisor?.pid).to.equal(agent?.pid)
      expect((await statusJson(data, name)).supervisorPid).to.equal(agent?.pid)
    }
    expect(agentProcesses(data)).to.deep.equal([agent?.pid])
    // `agent status` asks it, and says the same.
    const status = JSON.parse(await cliInOk(data, ['agent', 'status', '--json']))
    expect(status).to.include({ running: true, pid: agent?.pid, dataDir: data })
    expect(status.runs.map((r: { server: string }) => r.server).sort()).to.deep.equal(SERVERS)
    expect(await cliInOk(data, ['agent', 'status'])).to.contain(`  PID      ${agent?.pid}`)
    for (const name of SERVERS.slice(0, -1)) await cliInOk(data, ['server', 'stop', name])
    expect(alive(agent?.pid)).to.equal(true)
    await cliInOk(data, ['server', 'stop', SERVERS.at(-1) as string])
    await untilGone(agent?.pid as number)
    expect(agentOf(data)).to.equal(undefined)
    expect(JSON.parse(await cliInOk(data, ['agent', 'status', '--json']))).to.deep.equal({
      running: false,
      dataDir: data,
    })
  })

  it('killed with -9, leaves every game running; the agent the next command starts adopts them all, by process identity', async () => {
    const data = gameDataDir()
    for (const name of SERVERS) {
      await cliInOk(data, ['server', 'add', name, '--dir', fakeBedrockDir()])
      await cliInOk(data, ['server', 'start', name])
    }
    const games = SERVERS.map((name) => runState(data, name)?.game)
    const first = agentOf(data)?.pid as number
    process.kill(first, 'SIGKILL')
    await untilGone(first)
    for (const game of games) expect(isSameProcess(game?.pid as number, game?.identity)).to.equal(true)

    // A command for one server brings up an agent, which takes over the others by itself.
    expect(await cliInOk(data, ['server', 'send', 's1', 'list'])).to.match(/players online/)
    const second = agentOf(data)?.pid as number
    expect(second).to.be.a('number').and.not.equal(first)
    await untilSupervisedBy(data, SERVERS, second)
    for (const [i, name] of SERVERS.entries()) {
      const status = await statusJson(data, name)
      expect(status).to.include({ status: 'running', pid: games[i]?.pid, adopted: true, supervisorPid: second })
    }
    for (const name of SERVERS) expect(await cliInOk(data, ['server', 'stop', name])).to.match(/stopped/)
    for (const game of games) expect(isSameProcess(game?.pid as number, game?.identity)).to.equal(false)
    await untilGone(second)
  })

  it('run by a service manager (server-manager-agent), adopts the running games when it starts and stays when none runs; SIGTERM ends it, not the games', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const onDemand = agentOf(data)?.pid as number
    process.kill(onDemand, 'SIGKILL')
    await untilGone(onDemand)
    const game = runState(data, 's1')?.game
    const agent = spawn(process.execPath, [join(ROOT, 'bin', 'agent.js'), data], { stdio: 'ignore' })
    try {
      await untilSupervisedBy(data, ['s1'], agent.pid as number)
      expect(await statusJson(data, 's1')).to.include({ status: 'running', pid: game?.pid, adopted: true })
      await cliInOk(data, ['server', 'stop', 's1'])
      // Nothing to supervise, and it stays: the next start is its.
      await cliInOk(data, ['server', 'start', 's1'])
      expect(runState(data, 's1')?.supervisor?.pid).to.equal(agent.pid)
      const restarted = runState(data, 's1')?.game
      agent.kill('SIGTERM')
      expect(await exited(agent)).to.equal(0)
      expect(isSameProcess(restarted?.pid as number, restarted?.identity)).to.equal(true)
      expect(await cliInOk(data, ['server', 'stop', 's1'])).to.match(/stopped/)
    } finally {
      agent.kill('SIGKILL')
    }
  })

  it('refuses a request for a directory that is not a run directory of its data directory', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const client = await AgentClient.connect(new AgentFiles(data))
    try {
      for (const dir of [data, `${data}/servers/../../etc`, '/etc', `${data}/servers/s1/nested`]) {
        const refused = await client?.request({ op: 'supervise', dir, purpose: 'run', env: {} }).then(
          () => undefined,
          (error: Error) => error,
        )
        expect(refused?.message, dir).to.match(/not a run directory/)
      }
      const status = (await client?.request({ op: 'status' })) as { runs: { server: string }[] }
      expect(status.runs.map((run) => run.server)).to.deep.equal(['s1'])
    } finally {
      client?.close()
    }
    expect((await cliIn(data, ['server', 'stop', 's1'])).code).to.equal(0)
  })
})
