import { expect } from 'chai'
import { createManager, type Kernel, silentLogger } from '../../../manager'
import { spawnSupervisor } from '../../../services/servers/supervisor/client'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { fakeBedrockDir, gameDataDir, runState, untilGone, untilStatus } from '../../helpers/game'

/** Runs `fn` against the manager `npm start` runs (it follows its servers' supervisors from manager:started) on a fresh data directory. */
async function withDaemon(fn: (manager: Kernel, dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = gameDataDir()
  const manager = createManager({ dataDir, logger: silentLogger, daemon: true, defaultPlugins: false })
  await manager.start()
  try {
    await fn(manager, dataDir)
  } finally {
    await manager.stop()
  }
}

/** Resolves with the next `after_server_status_change` of `server` to `status`, as the manager's bus carries it. */
function nextStatus(manager: Kernel, server: string, status: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = manager.bus.on(
      'after_server_status_change',
      (change) => {
        if (change.serverName !== server || change.status !== status) return
        listener.dispose()
        resolve()
      },
      { owner: 'test' },
    )
  })
}

/** Resolves with the next player's join on `server`. */
function nextJoin(manager: Kernel, server: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = manager.bus.on(
      'after_player_join',
      (join) => {
        if (join.serverName !== server) return
        listener.dispose()
        resolve()
      },
      { owner: 'test' },
    )
  })
}

describe('services/servers: the servers list from memory in the manager (issue 36 item 4)', function () {
  this.timeout(60_000)

  it('is held while nothing changes, and shows at once what the supervisors, the consoles and power actions change', async () => {
    await withDaemon(async (manager) => {
      const { bus } = manager
      const list = async () => Object.fromEntries((await bus.request('servers:list', {})).map((s) => [s.name, s]))
      await bus.request('servers:add', { name: 's1', dir: fakeBedrockDir() })
      await bus.request('servers:add', { name: 'never', dir: fakeBedrockDir() })
      await bus.request('settings:set', { key: 'servers.restart.delay_ms', value: 0 })

      const first = await bus.request('servers:list', {})
      expect(first.map((s) => [s.name, s.status])).to.deep.equal([
        ['never', 'stopped'],
        ['s1', 'stopped'],
      ])
      // Nothing changed: the very same answer, frozen, since every caller shares it.
      expect(await bus.request('servers:list', {})).to.equal(first)
      expect(Object.isFrozen(first[0])).to.equal(true)

      // A power action of this process.
      await bus.request('servers:start', { name: 's1' })
      const running = await list()
      expect(running.s1?.status).to.equal('running')
      const pid = running.s1?.pid as number
      expect(pid).to.be.a('number')
      expect(running.never).to.equal(first[0], 'a server nothing happened to keeps its entry')

      // Who is online moves with the console, not the run.
      const joined = nextJoin(manager, 's1')
      await bus.request('servers:send', { name: 's1', command: 'fakejoin Steve 2535416409672151' })
      await joined
      expect((await list()).s1?.players).to.equal(1)

      // What only the supervisor sees: the game killed from outside, and started again by it.
      const restarted = nextStatus(manager, 's1', 'running')
      process.kill(pid, 'SIGKILL')
      await untilGone(pid)
      await restarted
      const again = await list()
      expect(again.s1?.status).to.equal('running')
      expect(again.s1?.pid).to.be.a('number').and.not.equal(pid)
      expect(again.s1?.players).to.equal(0, 'the players left with the crash')

      await bus.request('servers:stop', { name: 's1' })
      expect((await list()).s1?.status).to.equal('stopped')
    })
  })

  it("shows a run another process of the data directory started, which nothing on the manager's bus told of", async () => {
    await withDaemon(async (manager, dataDir) => {
      const { bus } = manager
      const list = async () => (await bus.request('servers:list', {})).find((s) => s.name === 's1')
      await bus.request('servers:add', { name: 's1', dir: fakeBedrockDir() })
      // Started and stopped once by the manager: its run directory holds the spec a supervisor reads.
      await bus.request('servers:start', { name: 's1' })
      await bus.request('servers:stop', { name: 's1' })
      expect((await list())?.status).to.equal('stopped')
      expect((await list())?.status).to.equal('stopped', 'held, not read again')

      // What another process's start does before it records anything (or if it dies first): a
      // supervisor is started for the run directory. No fact, no request reaches this manager.
      const announced = await spawnSupervisor(RunFiles.of(dataDir, 's1'), 's1')
      expect(announced.ok).to.equal(true)
      await untilStatus(dataDir, 's1', (entry) => entry.status === 'running')
      const seen = await list()
      expect(seen?.status).to.equal('running')
      expect(seen?.pid).to.equal(runState(dataDir, 's1')?.game?.pid)
    })
  })
})
