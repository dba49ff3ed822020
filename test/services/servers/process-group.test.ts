import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { AgentFiles } from '../../../services/servers/supervisor/run-files'
import { cliInOk } from '../../helpers/cli-in-process'
import { gameDataDir, runState, statusJson, untilGone, untilStatus } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'

/**
 * A game that records its PID when it starts and when it is told `stop` (then exits 0), and
 * otherwise answers its console: the real game behind a wrapper.
 */
const GAME = [
  "const fs = require('node:fs')",
  "fs.appendFileSync('started', `${process.pid}\\n`)",
  "console.log('ready')",
  "let buffered = ''",
  "process.stdin.setEncoding('utf8').on('data', (data) => {",
  '  buffered += data',
  '  for (let at; (at = buffered.indexOf("\\n")) >= 0; ) {',
  '    const line = buffered.slice(0, at)',
  '    buffered = buffered.slice(at + 1)',
  "    if (line === 'stop') {",
  "      fs.appendFileSync('stopped', `${process.pid}\\n`)",
  '      process.exit(0)',
  '    }',
  '    console.log(`got ${line}`)',
  '  }',
  '})',
  '',
].join('\n')

/** A generic server whose command is a shell that runs the game and then says so: `sh -c 'node game.js; echo done'`. */
async function wrappedServer(): Promise<{ data: string; dir: string }> {
  const data = gameDataDir()
  const dir = tempDir('sm-wrapped-')
  writeFileSync(join(dir, 'game.js'), GAME)
  await cliInOk(data, [
    'server',
    'add',
    'w1',
    '--dir',
    dir,
    '--command',
    '/bin/sh',
    '--arg',
    '-c',
    '--arg',
    `'${process.execPath}' game.js; echo done`,
    '--ready-line',
    '^ready$',
  ])
  await cliInOk(data, ['setting', 'set', 'servers.restart.delay_ms', '0'])
  return { data, dir }
}

const pidsIn = (file: string): number[] => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** Every live process running the game of `dir` (its cwd, and game.js on its command line). */
function gamesOf(dir: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    const pid = Number(name)
    if (!Number.isInteger(pid)) continue
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
      if (cmdline.includes('game.js') && readlinkSync(`/proc/${pid}/cwd`) === dir && cmdline[0] !== '/bin/sh')
        found.push(pid)
    } catch {}
  }
  return found
}

describe('services/servers: a game is its whole process group (issue 32, item 1)', function () {
  this.timeout(60_000)

  it('ends what outlived a killed wrapper (with its stop command) before the restart, which runs exactly one copy', async () => {
    const { data, dir } = await wrappedServer()
    await cliInOk(data, ['server', 'start', 'w1'])
    const shell = runState(data, 'w1')?.game?.pid as number
    const [first] = pidsIn(join(dir, 'started'))
    expect(first).to.be.a('number').and.not.equal(shell)
    expect(gamesOf(dir)).to.deep.equal([first])
    const restarted = untilStatus(data, 'w1', (e) => {
      const game = runState(data, 'w1')?.game
      return e.status === 'running' && game !== undefined && game.pid !== shell
    })
    process.kill(shell, 'SIGKILL')
    await restarted
    // The survivor was told to stop (players warned, world saved) and is gone; one new copy runs.
    expect(pidsIn(join(dir, 'stopped'))).to.deep.equal([first])
    const started = pidsIn(join(dir, 'started'))
    expect(started).to.have.length(2)
    expect(gamesOf(dir)).to.deep.equal([started[1]])
    expect(await cliInOk(data, ['server', 'send', 'w1', 'hello'])).to.equal('got hello\n')
    await cliInOk(data, ['server', 'stop', 'w1'])
    expect(gamesOf(dir)).to.deep.equal([])
  })

  it('leaves no process of the game after a kill, even one that outlived its wrapper', async () => {
    const { data, dir } = await wrappedServer()
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    await cliInOk(data, ['server', 'start', 'w1'])
    await cliInOk(data, ['server', 'kill', 'w1'])
    expect(gamesOf(dir)).to.deep.equal([])
  })

  it('follows the group when its wrapper died with nobody watching: still running, adopted, and ended by a stop', async () => {
    const { data, dir } = await wrappedServer()
    await cliInOk(data, ['server', 'start', 'w1'])
    const shell = runState(data, 'w1')?.game?.pid as number
    const [game] = pidsIn(join(dir, 'started'))
    const agent = JSON.parse(readFileSync(new AgentFiles(data).record, 'utf8')).pid as number
    process.kill(agent, 'SIGKILL')
    await untilGone(agent)
    process.kill(shell, 'SIGKILL')
    await untilGone(shell)
    // Its game still runs, so the server does: not a crash nobody saw, and not a second copy.
    expect((await statusJson(data, 'w1')).status).to.equal('running')
    expect(gamesOf(dir)).to.deep.equal([game])
    await cliInOk(data, ['server', 'stop', 'w1'])
    expect(pidsIn(join(dir, 'stopped'))).to.deep.equal([game])
    expect(gamesOf(dir)).to.deep.equal([])
    expect((await statusJson(data, 'w1')).status).to.equal('stopped')
  })
})
