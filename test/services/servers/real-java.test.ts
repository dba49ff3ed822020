import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { isSameProcess } from '../../../lib/process-identity'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliInOk } from '../../helpers/cli-in-process'
import { exited, gameDataDir, nextLine, runState, statusJson, untilGone, untilStatus } from '../../helpers/game'
import { cachedPackages } from '../../helpers/npm-cache'
import { freePort } from '../../helpers/ports'
import { ROOT, spawnManager, stop, waitForLine } from '../../helpers/run'
import { afterItsUser } from '../../helpers/run-end'
import { tempDir } from '../../helpers/temp-dir'

/**
 * Exact versions, checked together on Node 20.20 (mineflayer and minecraft-protocol declare Node
 * 22 in `engines`, npm only warns, and they run on 20). minecraft-protocol and minecraft-data are
 * pinned too: they are the protocol both sides speak, and their ranges would float.
 */
const PACKAGES = ['flying-squid@1.12.0', 'mineflayer@4.39.0', 'minecraft-protocol@1.68.0', 'minecraft-data@3.117.0']
/** A Minecraft version both flying-squid and mineflayer support. */
const VERSION = '1.16.5'
const FIXTURES = join(ROOT, 'test', 'fixtures')
const NAME = 'squid'
/** The shipped plugins (lifecycle_notifications among them), which the test setup turns off. */
const on = { SM_DEFAULT_PLUGINS: 'on' }

describe('services/servers: a real Java Edition server (flying-squid) and client (mineflayer) from npm (issue 19)', function () {
  this.timeout(120_000)
  let data: string
  let botLog: string
  let manager: ChildProcess

  /** The bot's lines from the `from`th on. */
  const botLines = (from = 0) => readFileSync(botLog, 'utf8').split('\n').filter(Boolean).slice(from)

  before(async function () {
    // A cold install downloads about 60 MB; a warm one is a look at one file.
    this.timeout(6 * 60_000)
    const packages =
      process.env.SM_REAL_GAME_TESTS === '0'
        ? { unavailable: 'SM_REAL_GAME_TESTS=0' }
        : await cachedPackages('real-java', PACKAGES)
    if ('unavailable' in packages) {
      console.log(`      (skipped: ${packages.unavailable})`)
      this.skip()
    }
    const { modules } = packages
    const port = await freePort()

    // The game as an admin would lay it out: flying-squid's settings in config/settings.json.
    const dir = join(tempDir('sm-squid-'), 'squid')
    mkdirSync(join(dir, 'config'), { recursive: true })
    copyFileSync(join(FIXTURES, 'flying-squid-server.js'), join(dir, 'server.js'))
    const defaults = JSON.parse(readFileSync(join(modules, 'flying-squid', 'config', 'default-settings.json'), 'utf8'))
    const settings = {
      ...defaults,
      host: '127.0.0.1',
      port,
      'online-mode': false,
      version: VERSION,
      worldFolder: 'world',
      generation: { name: 'superflat', options: {} },
      'view-distance': 2,
      logging: false,
    }
    writeFileSync(join(dir, 'config', 'settings.json'), JSON.stringify(settings, null, 2))

    data = gameDataDir()
    await cliInOk(
      data,
      [
        ...['server', 'add', NAME, '--dir', dir, '--profile', 'generic', '--command', process.execPath],
        ...['--arg', 'server.js', '--env', `FLYING_SQUID=${join(modules, 'flying-squid')}`],
        // What flying-squid prints once it listens (after its ANSI colours are stripped).
        ...[
          '--ready-line',
          'Server listening on port \\d+',
          '--say-command',
          'say {message}',
          '--stop-command',
          'stop',
        ],
      ],
      on,
    )
    await cliInOk(data, ['server', 'config', NAME, 'restart.enabled', 'true'], on)
    // A second to finish what they do: a warning, not a wait the test needs.
    await cliInOk(data, ['server', 'config', NAME, 'custom.lifecycle_notifications.delay_s', '1'], on)
    manager = await spawnManager(data, [], on)
    await waitForLine(manager, /^ready in/)
    await cliInOk(data, ['server', 'start', NAME], on)

    const botDir = tempDir('sm-bot-')
    botLog = join(botDir, 'bot.log')
    writeFileSync(botLog, '')
    const spawned = nextLine(botLog, /^spawn$/)
    const out = openSync(botLog, 'a')
    const bot = spawn(process.execPath, [join(FIXTURES, 'mineflayer-bot.js'), String(port), 'Steve', VERSION], {
      cwd: botDir,
      env: { ...process.env, MINEFLAYER: join(modules, 'mineflayer') },
      stdio: ['ignore', out, out],
    })
    closeSync(out)
    afterItsUser(async () => {
      await stop(bot, 'SIGKILL')
    })
    await spawned
  })

  it("warns the bot with the game's say command before a stop, and then the stop disconnects it", async () => {
    const from = botLines().length
    const ended = nextLine(botLog, /^end /)
    expect(await cliInOk(data, ['server', 'stop', NAME], on)).to.match(/stopped \(exit code 0\)/)
    await ended
    // Up to its disconnection, the bot heard the warning (the plugin said it a second before).
    const lines = botLines(from)
    const heard = lines.slice(
      0,
      lines.findIndex((line) => line.startsWith('end ')),
    )
    expect(heard, lines.join('\n')).to.include('chat [Server] Server stopping in 1 second.')
  })

  it('keeps the bot connected across kill -9 of the manager and of the supervisor, and the game is adopted', async () => {
    const spawned = nextLine(botLog, /^spawn$/)
    await cliInOk(data, ['server', 'start', NAME], on)
    await spawned
    const from = botLines().length
    const state = runState(data, NAME)
    const game = state?.game?.pid as number
    const supervisor = state?.supervisor?.pid as number
    process.kill(manager.pid as number, 'SIGKILL')
    await exited(manager)
    process.kill(supervisor, 'SIGKILL')
    await untilGone(supervisor)
    expect(isSameProcess(game, state?.game?.identity)).to.equal(true)

    // Said with no manager and no supervisor: the command adopts the game under a new supervisor.
    const ping = nextLine(botLog, /^chat \[Server\] ping$/)
    await cliInOk(data, ['server', 'send', NAME, 'say', 'ping'], on)
    await ping
    // The same connection all along: it never ended, nor joined again.
    expect(botLines(from).filter((line) => /^(end|spawn)/.test(line))).to.deep.equal([])
    const adopted = await statusJson(data, NAME)
    expect(adopted).to.include({ status: 'running', pid: game, adopted: true })
    expect(adopted.supervisorPid).to.be.a('number').and.not.equal(supervisor)
  })

  it('restarts the game after a crash (kill -9), and the bot joins again and hears what is said next', async () => {
    manager = await spawnManager(data, [], on)
    await waitForLine(manager, /^ready in/)
    const crashed = runState(data, NAME)?.game?.pid as number
    const ended = nextLine(botLog, /^end /)
    const rejoined = nextLine(botLog, /^spawn$/)
    process.kill(crashed, 'SIGKILL')
    await ended
    // The bot is in again: the game was restarted (its supervisor recorded the crash first).
    await rejoined
    await untilStatus(data, NAME, (entry) => entry.status === 'running')
    const restarted = await statusJson(data, NAME)
    expect(restarted).to.include({ status: 'running', restarts: 1 })
    expect(restarted.pid).to.be.a('number').and.not.equal(crashed)
    const crash = RunFiles.of(data, NAME)
      .readJournal()
      .filter((entry) => entry.status === 'crashed')
    expect(crash.map(({ restarts, willRestart }) => ({ restarts, willRestart }))).to.deep.equal([
      { restarts: 1, willRestart: true },
    ])

    const heard = nextLine(botLog, /^chat \[Server\] after the crash$/)
    await cliInOk(data, ['server', 'send', NAME, 'say', 'after', 'the', 'crash'], on)
    await heard
    expect(await cliInOk(data, ['server', 'stop', NAME], on)).to.match(/stopped \(exit code 0\)/)
    expect(await stop(manager)).to.equal(0)
  })
})
