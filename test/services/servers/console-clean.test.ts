import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliInOk } from '../../helpers/cli-in-process'
import { gameDataDir, managerConsoleLine } from '../../helpers/game'
import { spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/**
 * A game that writes for a terminal although its output is a file, as Node's readline does: a
 * window title, then each message after "to column 1, clear the line" and followed by its `> `
 * prompt, its level coloured. It speaks enough of Bedrock's console to be run as one (the ready
 * line, `list`, `stop`); anything else it answers with `got <line>`.
 */
const GAME = `
const readline = require('node:readline')
const out = (text) => process.stdout.write(text)
const say = (text) => out('\\x1b[1G\\x1b[2K' + text + '\\n> ')
const info = (message) => say('\\x1b[0;32m[2024-01-01 12:00:00:000 INFO]\\x1b[0m ' + message)
out('\\x1b]0;a game\\x07> ')
info('Server started.')
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'stop') {
    info('Quit correctly')
    process.exit(0)
  }
  if (line === 'list') {
    info('There are 1/10 players online:')
    return say('\\x1b[1mSteve\\x1b[22m')
  }
  info('got ' + line)
})
`

const info = (message: string) => `[2024-01-01 12:00:00:000 INFO] ${message}`

/** A folder holding the game; as a bedrock server, `bedrock_server` runs it. */
function gameDir(bedrock: boolean): string {
  const dir = join(tempDir(), 'game')
  mkdirSync(dir)
  writeFileSync(join(dir, 'game.js'), GAME)
  if (bedrock)
    writeFileSync(join(dir, 'bedrock_server'), `#!/bin/sh\nexec '${process.execPath}' game.js\n`, { mode: 0o755 })
  return dir
}

describe('services/servers: console lines are plain text everywhere but the log file', function () {
  this.timeout(60_000)

  it('server send replies, server logs and logs --follow print no escapes or prompts; console.log keeps the raw bytes', async () => {
    const data = gameDataDir()
    const dir = gameDir(false)
    await cliInOk(data, ['server', 'add', 'g1', '--dir', dir, '--command', process.execPath, '--arg', 'game.js'])
    await cliInOk(data, ['server', 'start', 'g1'])
    // It has no ready line, so it runs from its spawn: its first line may come after a command sent
    // at once, and be that command's reply. Sent once the game has said it.
    while (!JSON.parse(await cliInOk(data, ['server', 'logs', 'g1', '--json'])).lines.includes(info('Server started.')))
      await new Promise(setImmediate)
    expect(await cliInOk(data, ['server', 'send', 'g1', 'hello'])).to.equal(`${info('got hello')}\n`)
    expect(JSON.parse(await cliInOk(data, ['server', 'send', 'g1', 'list', '--json'])).reply).to.deep.equal([
      info('There are 1/10 players online:'),
      'Steve',
    ])
    const lines = [info('Server started.'), info('got hello'), info('There are 1/10 players online:'), 'Steve']
    expect(JSON.parse(await cliInOk(data, ['server', 'logs', 'g1', '--json'])).lines).to.deep.equal(lines)
    expect(await cliInOk(data, ['server', 'logs', 'g1'])).to.equal(`${lines.join('\n')}\n`)

    const follow = spawnCli(data, ['server', 'logs', 'g1', '--follow', '--lines', '1'])
    expect(await waitForLine(follow, /Steve/)).to.equal('Steve')
    const followed = waitForLine(follow, /got followed/)
    await cliInOk(data, ['server', 'send', 'g1', 'followed'])
    expect(await followed).to.equal(info('got followed'))
    await stop(follow)

    const raw = readFileSync(RunFiles.of(data, 'g1').log, 'utf8')
    expect(raw).to.include(
      '\x1b]0;a game\x07> \x1b[1G\x1b[2K\x1b[0;32m[2024-01-01 12:00:00:000 INFO]\x1b[0m Server started.\n',
    )
    expect(raw).to.include('> \x1b[1G\x1b[2K\x1b[1mSteve\x1b[22m\n')
    await cliInOk(data, ['server', 'stop', 'g1'])
  })

  it("a bedrock server's ready line and list reply are found through the escapes; the manager's live console is plain text", async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 'b1', '--dir', gameDir(true)])
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in/)
      // Running once its (escaped) "Server started." line came: never until the start timeout.
      expect(await cliInOk(data, ['server', 'start', 'b1'])).to.match(/is running/)
      expect(JSON.parse(await cliInOk(data, ['server', 'send', 'b1', 'list', '--json'])).reply).to.deep.equal([
        info('There are 1/10 players online:'),
        'Steve',
      ])
      const event = await managerConsoleLine(data, /got live/, () => cliInOk(data, ['server', 'send', 'b1', 'live']))
      expect(event).to.deep.equal({ serverName: 'b1', line: info('got live') })
      await cliInOk(data, ['server', 'stop', 'b1'])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })
})
