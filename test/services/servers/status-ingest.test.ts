import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { factsOf } from '../../helpers/facts'
import { fakeBedrockDir, gameDataDir, nextLine, runState, untilGone } from '../../helpers/game'
import { plugin, writePlugins } from '../../helpers/plugins'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/**
 * A plugin whose hooks of the facts the status ingest records read the server's status, and
 * start it again after a crash: each writes a line to `file` once it has its answer.
 */
function watcher(file: string): string {
  const write = (line: string) =>
    `require('node:fs').appendFileSync(${JSON.stringify(file)}, JSON.stringify(${line}) + '\\n')`
  return plugin(
    'Watcher',
    `async afterServerStatusChange(p) {
      const now = await this.api.getServerRunningStatus(p.serverName)
      ${write("{ hook: 'change', to: p.status, running: now.running }")}
    }
    async afterServerCrash(p) {
      const started = await this.api.startServer(p.serverName)
      ${write("{ hook: 'crash', start: started.status }")}
    }`,
  )
}

function lines(file: string): { hook: string; to?: string; start?: string }[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

describe('services/servers: the status ingest, the one owner of status facts', function () {
  this.timeout(120_000)

  it('lets the hooks of the facts it records read the status and start the server, without waiting on their own recording', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    // A hook that waited on its own recording would hang until this (past the test's own timeout).
    await cliInOk(data, ['setting', 'set', 'plugins.hook_timeout_ms', '600000'])
    await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
    const hooks = join(tempDir(), 'hooks.jsonl')
    writePlugins(data, { 'watcher.ts': watcher(hooks) })
    await cliInOk(data, ['plugin', 'enable', 'watcher'])

    // No manager: the CLI's start records the journal, its hooks run in that process.
    await cliInOk(data, ['server', 'start', 's1'])
    expect(lines(hooks)).to.deep.equal([
      { hook: 'change', to: 'starting', running: true },
      { hook: 'change', to: 'running', running: true },
    ])

    // The manager: the live follow records a crash, whose hook starts the server again.
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in/)
      const restarted = nextLine(hooks, /"hook":"crash"/)
      const game = runState(data, 's1')?.game?.pid as number
      process.kill(game, 'SIGKILL')
      await untilGone(game)
      expect(JSON.parse(await restarted)).to.deep.equal({ hook: 'crash', start: 'success' })
      const changes = (await factsOf(data, 'after_server_status_change')).map(
        (e) => (e.payload as { status: string }).status,
      )
      expect(changes).to.deep.equal(['starting', 'running', 'crashed', 'starting', 'running'])
      expect(runState(data, 's1')?.status).to.equal('running')
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
    await cliInOk(data, ['server', 'stop', 's1'])
  })
})
