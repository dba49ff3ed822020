import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { isSameProcess, processIdentity } from '../../../lib/process-identity'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { managerEvent } from '../../helpers/facts'
import {
  alive,
  fakeBedrockDir,
  gameDataDir,
  managerConsoleLine,
  nodeGameArgs,
  runState,
  statusJson,
  untilGone,
  untilStatus,
  untilSupervisorEnds,
} from '../../helpers/game'
import { plugin, writePlugins } from '../../helpers/plugins'
import { CLI, cli, cliOk, ROOT, spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/** The facts of `type`, read by a process, or by `runner` (cliInOk: in-process, to the manager that runs on `dataDir`). */
async function events(dataDir: string, type: string, runner: typeof cliOk = cliOk) {
  return JSON.parse(await runner(dataDir, ['events', '--type', type, '--json', '--limit', '1000'])) as {
    type: string
    actor: string
    payload: Record<string, unknown> & { result: Record<string, unknown> }
  }[]
}

describe('services/servers: detached game servers from the CLI (real processes, and in-process commands to a real manager)', function () {
  this.timeout(60_000)

  it('starts detached from one process; another sees it running and commands it; it outlives its starter', async () => {
    const data = gameDataDir()
    await cliOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    const started = await cliOk(data, ['server', 'start', 's1'])
    expect(started).to.match(/Server 's1' is running \(PID \d+\)/)
    const status = await statusJson(data, 's1')
    expect(status).to.include({ status: 'running', mode: 'detached', adopted: false })
    expect(isSameProcess(status.pid as number, runState(data, 's1')?.game?.identity)).to.equal(true)
    const reply = await cliOk(data, ['server', 'send', 's1', 'list'])
    expect(reply).to.match(/There are 0\/10 players online:/)
    expect(await cliOk(data, ['server', 'list'])).to.match(/s1\s+bedrock\s+running\s+\d+/)
    expect(await cliOk(data, ['server', 'stop', 's1'])).to.match(/stopped \(exit code 0\)/)
    expect(alive(status.pid)).to.equal(false)
    expect((await statusJson(data, 's1')).status).to.equal('stopped')
    const changes = (await events(data, 'after_server_status_change')).map((e) => e.payload.status)
    expect(changes).to.deep.equal(['starting', 'running', 'stopping', 'stopped'])
    const facts = (await events(data, 'after_server_*')).map((e) => e.type)
    expect(facts).to.include.members(['after_server_start', 'after_server_stop'])
  })

  it('survives kill -9 of the manager and of its supervisor; stays commandable; a new manager adopts it and stops it cleanly', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    const manager = await spawnManager(data)
    await waitForLine(manager, /^ready in/)
    await cliInOk(data, ['server', 'start', 's1'])
    const state = runState(data, 's1')
    const game = state?.game?.pid as number
    const gameId = state?.game?.identity
    process.kill(manager.pid as number, 'SIGKILL')
    process.kill(state?.supervisor?.pid as number, 'SIGKILL')
    await untilGone(state?.supervisor?.pid as number)
    expect(isSameProcess(game, gameId)).to.equal(true)

    // Commanded with no manager and no supervisor: the command adopts it under a new supervisor.
    expect(await cliOk(data, ['server', 'send', 's1', 'list'])).to.match(/players online/)
    const adopted = await statusJson(data, 's1')
    expect(adopted).to.include({ status: 'running', pid: game, adopted: true })
    process.kill(adopted.supervisorPid as number, 'SIGKILL')
    await untilGone(adopted.supervisorPid as number)

    const second = await spawnManager(data)
    await waitForLine(second, /^ready in/)
    const seen = await statusJson(data, 's1')
    expect(seen).to.include({ status: 'running', pid: game, adopted: true })
    expect(seen.supervisorPid).to.be.a('number').and.not.equal(adopted.supervisorPid)
    expect(await cliInOk(data, ['server', 'stop', 's1'])).to.match(/stopped/)
    expect(isSameProcess(game, gameId)).to.equal(false)
    expect(readFileSync(RunFiles.of(data, 's1').log, 'utf8')).to.match(/Quit correctly/)
    expect(await stop(second)).to.equal(0)
  })

  it("puts a running server's console lines on the manager's bus as servers:console events", async () => {
    const data = gameDataDir()
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in/)
      await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
      await cliInOk(data, ['server', 'start', 's1'])
      const event = await managerConsoleLine(data, /\[Server\] over the bus/, () =>
        cliInOk(data, ['server', 'send', 's1', 'say', 'over', 'the', 'bus']),
      )
      expect(event).to.deep.include({ serverName: 's1' })
      await cliInOk(data, ['server', 'stop', 's1'])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  it("keeps none of its starter's inherited file descriptors open (a caller waiting for EOF is not held up)", async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    // The CLI inherits an extra descriptor from its shell, as from a CI runner (fd 200, without
    // close-on-exec: Node marks the low ones itself, so a shell puts it high).
    const child = spawn(
      'bash',
      ['-c', 'exec 200>&3 3>&-; exec "$0" "$@"', process.execPath, CLI, 'server', 'start', 's1'],
      {
        cwd: ROOT,
        env: { ...process.env, SM_DATA_DIR: data },
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      },
    )
    const extra = child.stdio[3] as NodeJS.ReadableStream
    extra.resume()
    const eof = new Promise<void>((resolve) => extra.once('end', resolve))
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(await exit).to.equal(0)
    expect((await statusJson(data, 's1')).status).to.equal('running')
    await eof // with the server and its supervisor still running
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('never takes a reused PID for the server, and never signals that process', async () => {
    const data = gameDataDir()
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    // The end it finds is not restarted: what this looks at is the PID alone.
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    await cliInOk(data, ['server', 'start', 's1'])
    await cliInOk(data, ['server', 'kill', 's1'])
    // Another process now holds the PID the state file names (its start time differs).
    const stranger = spawn('sleep', ['600'], { stdio: 'ignore' })
    const files = RunFiles.of(data, 's1')
    const state = files.readState()
    if (!state) throw new Error('no state')
    files.writeState({
      ...state,
      status: 'running',
      game: {
        pid: stranger.pid as number,
        identity: `${processIdentity(process.pid)}-old`,
        startedAt: state.since,
        logOffset: 0,
      },
    })
    try {
      const status = await statusJson(data, 's1')
      expect(status.status).to.not.equal('running')
      expect(status.pid).to.equal(undefined)
      const r = await cliIn(data, ['server', 'kill', 's1'])
      expect(r.stderr).to.match(/SM_ERR_SERVER_NOT_RUNNING/)
      expect(alive(stranger.pid)).to.equal(true)
    } finally {
      stranger.kill('SIGKILL')
    }
  })

  it('restarts a server killed from outside per its policy with no manager running, then leaves it crashed with server_crash facts', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.delay_ms', '0'])
    await cliInOk(data, ['setting', 'set', 'servers.restart.max_restarts', '2'])
    await cliInOk(data, ['server', 'start', 's1'])
    const pids: number[] = []
    for (let round = 0; round < 2; round++) {
      const pid = runState(data, 's1')?.game?.pid as number
      pids.push(pid)
      // Back when the state file itself says running with another game process.
      const restarted = () => {
        const state = runState(data, 's1')
        return state?.status === 'running' && state.game !== undefined && state.game.pid !== pid
      }
      const back = untilStatus(data, 's1', (e) => e.status === 'running' && restarted())
      process.kill(pid, 'SIGKILL')
      await back
    }
    const last = runState(data, 's1')?.game?.pid as number
    const ended = untilSupervisorEnds(data, 's1')
    process.kill(last, 'SIGKILL')
    await ended
    expect(new Set([...pids, last]).size).to.equal(3)
    const status = await statusJson(data, 's1')
    expect(status).to.include({ status: 'crashed', restarts: 2, signal: 'SIGKILL' })
    const crashes = await events(data, 'after_server_crash')
    expect(crashes.map((e) => e.payload.willRestart)).to.deep.equal([true, true, false])
    expect(crashes.at(-1)?.payload).to.include({ serverName: 's1', signal: 'SIGKILL', exitCode: null })
  })

  it('runs a generic console server with its own command, arguments and environment', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = join(tempDir(), 'generic')
    mkdirSync(dir)
    writeFileSync(
      join(dir, 'run.sh'),
      [
        '#!/bin/sh',
        'echo "args=$* FOO=$FOO LD=${LD_LIBRARY_PATH:-none} SM=${SM_DATA_DIR:-none}"',
        'while read -r line; do',
        '  echo "got $line"',
        '  [ "$line" = "quit" ] && exit 0',
        'done',
        '',
      ].join('\n'),
      { mode: 0o755 },
    )
    await cliInOk(data, [
      'server',
      'add',
      'g1',
      '--dir',
      dir,
      '--command',
      './run.sh',
      '--arg',
      'one',
      '--arg',
      'two',
      '--env',
      'FOO=bar',
      '--stop-command',
      'quit',
    ])
    expect(await cliInOk(data, ['server', 'start', 'g1'])).to.match(/is running/)
    expect(await cliInOk(data, ['server', 'logs', 'g1', '--lines', '1'])).to.equal(
      'args=one two FOO=bar LD=none SM=none\n',
    )
    expect(await cliInOk(data, ['server', 'send', 'g1', 'hello'])).to.equal('got hello\n')
    expect(await cliInOk(data, ['server', 'stop', 'g1'])).to.match(/stopped \(exit code 0\)/)
  })

  it('records what happened with nobody watching once, however many processes look at once', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    await cliInOk(data, ['server', 'start', 's1'])
    const ended = untilSupervisorEnds(data, 's1')
    process.kill(runState(data, 's1')?.game?.pid as number, 'SIGKILL')
    await ended
    const looks = await Promise.all([1, 2, 3, 4].map(() => statusJson(data, 's1')))
    expect(looks.map((s) => s.status)).to.deep.equal(['crashed', 'crashed', 'crashed', 'crashed'])
    const changes = (await events(data, 'after_server_status_change')).map((e) => e.payload.journalSeq)
    expect(changes).to.deep.equal([1, 2, 3])
    expect(await events(data, 'after_server_crash')).to.have.length(1)
  })

  it('escalates a stop the game ignores to SIGTERM', async () => {
    const data = gameDataDir()
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_IGNORE_STOP: '1' } })])
    await cliInOk(data, ['setting', 'set', 'servers.stop_timeout_s', '0'])
    await cliInOk(data, ['server', 'start', 's1'])
    expect(await cliInOk(data, ['server', 'stop', 's1'])).to.match(
      /killed by SIGTERM\); it ignored its stop command, so it got SIGTERM/,
    )
    expect((await statusJson(data, 's1')).status).to.equal('stopped')
  })

  it('runs before_server_start before the process exists (a veto leaves none) and after_server_start once it is up', async () => {
    const data = gameDataDir()
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    const record = join(tempDir(), 'hooks.jsonl')
    writePlugins(data, {
      'gate.ts': plugin(
        'Gate',
        `
        beforeServerStart(p) {
          const fs = require('node:fs')
          const state = require('node:path').join(${JSON.stringify(data)}, 'servers', p.serverName, 'state.json')
          fs.appendFileSync(${JSON.stringify(record)}, JSON.stringify({ hook: 'before', game: fs.existsSync(state) ? JSON.parse(fs.readFileSync(state, 'utf8')).game ?? null : null }) + '\\n')
          if (fs.existsSync(${JSON.stringify(`${record}.veto`)})) return { cancel: true, reason: 'maintenance window' }
        }
        async afterServerStart(p) {
          const status = await this.api.getServerRunningStatus(p.serverName)
          require('node:fs').appendFileSync(${JSON.stringify(record)}, JSON.stringify({ hook: 'after', result: p.result.status, status }) + '\\n')
        }`,
      ),
    })
    await cliInOk(data, ['plugin', 'enable', 'gate'])
    writeFileSync(`${record}.veto`, '')
    const vetoed = await cliIn(data, ['server', 'start', 's1'])
    expect(vetoed.code).to.equal(1)
    expect(vetoed.stderr).to.match(
      /SM_ERR_SERVER_CHANGE_CANCELLED\]: The start of 's1' was cancelled by '?(plugin:)?gate'?: maintenance window/,
    )
    expect(runState(data, 's1')?.game).to.equal(undefined)
    expect(existsSync(RunFiles.of(data, 's1').socket)).to.equal(false)

    const { rmSync } = await import('node:fs')
    rmSync(`${record}.veto`)
    await cliInOk(data, ['server', 'start', 's1'])
    const lines = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).to.deep.equal([
      { hook: 'before', game: null },
      { hook: 'after', result: 'cancelled', status: { status: 'stopped', running: false } },
      { hook: 'before', game: null },
      { hook: 'after', result: 'success', status: { status: 'running', running: true } },
    ])
  })

  it('refuses bad requests with coded errors and changes nothing', async () => {
    const data = gameDataDir()
    const missing = join(tempDir(), 'gone')
    mkdirSync(missing)
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'add', 'g1', '--dir', missing, '--command', './no-such-binary'])
    const expectError = async (args: string[], code: string, exit: number) => {
      const r = await cliIn(data, args)
      expect(r.stderr, args.join(' ')).to.include(`[${code}]`)
      expect(r.code, args.join(' ')).to.equal(exit)
    }
    await expectError(['server', 'start', 'nope'], 'SM_ERR_SERVER_NOT_FOUND', 66)
    await expectError(['server', 'stop', 's1'], 'SM_ERR_SERVER_NOT_RUNNING', 75)
    await expectError(['server', 'send', 's1', 'list'], 'SM_ERR_SERVER_NOT_RUNNING', 75)
    await expectError(['server', 'kill', 's1'], 'SM_ERR_SERVER_NOT_RUNNING', 75)
    await expectError(['server', 'start', 'g1'], 'SM_ERR_SERVER_START_FAILED', 70)
    expect((await statusJson(data, 'g1')).status).to.equal('error')
    await cliInOk(data, ['server', 'start', 's1'])
    await expectError(['server', 'start', 's1'], 'SM_ERR_SERVER_ALREADY_RUNNING', 75)
    await expectError(['server', 'send', 's1', ' '], 'SM_ERR_SERVER_COMMAND_INVALID', 64)
    await expectError(['server', 'send', 's1', 'x'.repeat(5000)], 'SM_ERR_SERVER_COMMAND_INVALID', 64)
    await expectError(['server', 'remove', 's1'], 'SM_ERR_SERVER_ALREADY_RUNNING', 75)
    // A power action held by a live process: the next one is refused at once.
    const files = RunFiles.of(data, 's1')
    writeFileSync(
      files.powerLock,
      JSON.stringify({ pid: process.pid, identity: processIdentity(process.pid), action: 'restart', since: 'now' }),
    )
    await expectError(['server', 'stop', 's1'], 'SM_ERR_SERVER_BUSY', 75)
    expect((await statusJson(data, 's1')).status).to.equal('running')
    // kill bypasses the queue.
    expect(await cliInOk(data, ['server', 'kill', 's1'])).to.match(/killed/)
    expect((await statusJson(data, 's1')).status).to.equal('stopped')
  })

  it("exits non-zero when the game refuses a command (its profile's error lines), shows the reply, records it, and sends it once (issue 19)", async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const refused = async (command: string, runner: typeof cli = cli) => {
      const r = await runner(data, ['server', 'send', 's1', command])
      expect(r.code, r.stderr).to.equal(65)
      expect(r.stderr).to.match(
        new RegExp(
          `^Error \\[SM_ERR_SERVER_COMMAND_REFUSED\\]: The server 's1' refused the command '${command}': "Unknown command: ${command}\\. Please check`,
        ),
      )
      expect(r.stdout).to.match(new RegExp(`^\\[[^\\]]+ INFO\\] Unknown command: ${command}\\. Please check`))
    }
    await refused('nosuch')
    expect(await cliInOk(data, ['server', 'send', 's1', 'list'])).to.match(/There are 0\/10 players online:/)
    // Through a running manager (the bus bridge) it is the same: the reply crosses with the error.
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in/)
      await refused('bogus', cliIn)
      const sends = await events(data, 'after_command_send', cliInOk)
      expect(sends.map((e) => [e.payload.command, e.payload.result.status, e.payload.result.code])).to.deep.equal([
        ['nosuch', 'error', 'SM_ERR_SERVER_COMMAND_REFUSED'],
        ['list', 'success', undefined],
        ['bogus', 'error', 'SM_ERR_SERVER_COMMAND_REFUSED'],
      ])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
    // Sent is sent: each refused command reached the game once.
    const log = readFileSync(RunFiles.of(data, 's1').log, 'utf8')
    expect(log.match(/Unknown command: nosuch\./g)).to.have.length(1)
    expect(log.match(/Unknown command: bogus\./g)).to.have.length(1)
  })

  it('follows the console live and prints the last lines', async () => {
    const data = gameDataDir()
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    expect(await cliInOk(data, ['server', 'logs', 's1', '--lines', '1'])).to.match(/^\[.* INFO\] Server started\.\n$/)
    const follower = spawnCli(data, ['server', 'logs', 's1', '--follow', '--lines', '1'])
    try {
      await waitForLine(follower, /Server started\./)
      const hello = waitForLine(follower, /\[Server\] hello there/)
      await cliInOk(data, ['server', 'send', 's1', 'say', 'hello', 'there'])
      await hello
      expect(await stop(follower, 'SIGINT')).to.equal(0)
    } finally {
      follower.kill('SIGKILL')
    }
  })

  it('rotates a console log past servers.log_max_bytes, keeping retention.logs old ones', async () => {
    const data = gameDataDir()
    await managerOn(data)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['setting', 'set', 'servers.log_max_bytes', String(64 * 1024)])
    await cliInOk(data, ['setting', 'set', 'retention.logs', '1'])
    const files = RunFiles.of(data, 's1')
    mkdirSync(files.dir, { recursive: true })
    for (const round of ['first', 'second']) {
      writeFileSync(files.log, `${round}\n${'x'.repeat(70 * 1024)}\n`)
      await cliInOk(data, ['server', 'start', 's1'])
      await cliInOk(data, ['server', 'stop', 's1'])
      expect(readFileSync(`${files.log}.1`, 'utf8').startsWith(`${round}\n`)).to.equal(true)
      expect(readFileSync(files.log, 'utf8')).to.match(/^NO LOG FILE! - setting up server logging/)
    }
    expect(existsSync(`${files.log}.2`)).to.equal(false)
  })

  it('runs a server in the foreground with --direct and stops it on Ctrl+C', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    const direct = spawnCli(data, ['server', 'start', 's1', '--direct'])
    await waitForLine(direct, /Server started\./)
    const status = await statusJson(data, 's1')
    expect(status).to.include({ status: 'running', mode: 'direct' })
    direct.stdin.write('list\n')
    await waitForLine(direct, /There are 0\/10 players online/)
    expect(await stop(direct, 'SIGINT')).to.equal(0)
    expect(alive(status.pid)).to.equal(false)
    expect((await statusJson(data, 's1')).status).to.equal('stopped')
  })
})

/** Resolves once a process is gone (its exit is observed by polling /proc: it is not our child). */
describe('plugins/default: autostart and lifecycle notifications', function () {
  this.timeout(60_000)

  it('starts autostart servers when the manager starts and warns players before a stop', async () => {
    const data = gameDataDir()
    const on = { SM_DEFAULT_PLUGINS: 'on' }
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_PLAYERS: 'steve,alex' } })], on)
    await cliInOk(data, ['server', 'add', 's2', '--dir', fakeBedrockDir()], on)
    const set = await cliInOk(data, ['server', 'config', 's1', 'autostart', 'true'], on)
    expect(set).to.equal('s1: autostart = true (was false, its default)\n')
    await cliInOk(data, ['setting', 'set', 'custom.lifecycle_notifications.delay_s', '0'], on)
    const manager = await spawnManager(data, [], on)
    try {
      await waitForLine(manager, /Started 's1' \(autostart\)/, { stream: 'stderr' })
      expect((await statusJson(data, 's1')).status).to.equal('running')
      expect((await statusJson(data, 's2')).status).to.equal('stopped')
      const stopped = await cliIn(data, ['server', 'stop', 's1'], on)
      expect(stopped.code, stopped.stderr).to.equal(0)
      // The stop says what the players were told, as it is sent (issue 34 item 7).
      expect(stopped.stderr).to.equal('Stopping s1...\nSent to s1 first: say Server stopping in 0 seconds.\n')
      const log = readFileSync(RunFiles.of(data, 's1').log, 'utf8')
      expect(log).to.match(/\[Server\] Server stopping in 0 seconds\.[\s\S]*Server stop requested\./)
      // Nobody online (its `list` says so): no warning, no wait.
      await cliInOk(data, ['server', 'start', 's2'], on)
      await cliInOk(data, ['server', 'stop', 's2'], on)
      const empty = readFileSync(RunFiles.of(data, 's2').log, 'utf8')
      expect(empty).to.match(/There are 0\/10 players online:[\s\S]*Server stop requested\./)
      expect(empty).to.not.include('[Server]')
      // Who is online is asked as a read (this.api.listPlayers): no console command in the log.
      const commands = (await events(data, 'after_command_send', cliInOk)).map((fact) => fact.payload.command)
      expect(commands).to.not.include('list')
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })

  /** A generic console game that records every line it receives (received.txt) and stops on `quit`. */
  function recordingGame(): { dir: string; received: () => string[] } {
    const dir = join(tempDir(), 'game')
    mkdirSync(dir)
    writeFileSync(
      join(dir, 'game.js'),
      [
        "const fs = require('node:fs')",
        "let buffered = ''",
        "process.stdin.setEncoding('utf8')",
        "process.stdin.on('data', (chunk) => {",
        '  buffered += chunk',
        "  for (let at = buffered.indexOf('\\n'); at >= 0; at = buffered.indexOf('\\n')) {",
        '    const line = buffered.slice(0, at)',
        '    buffered = buffered.slice(at + 1)',
        "    fs.appendFileSync('received.txt', line + '\\n')",
        "    if (line === 'quit') process.exit(0)",
        "    console.log('ok ' + line)",
        '  }',
        '})',
        "console.log('listening')",
        '',
      ].join('\n'),
    )
    const file = join(dir, 'received.txt')
    return { dir, received: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []) }
  }
  const addGame = (data: string, name: string, dir: string, extra: string[] = []) =>
    cliInOk(data, nodeGameArgs(name, dir, '--stop-command', 'quit', ...extra))

  it('warns the players of a generic game with its own say command, and never sends it a command it does not know (issue 19)', async () => {
    const data = gameDataDir()
    const on = { SM_DEFAULT_PLUGINS: 'on' }
    await managerOn(data, { defaultPlugins: true })
    const game = recordingGame()
    await addGame(data, 'g1', game.dir, ['--say-command', 'broadcast {message}'])
    // The server's own delay wins over the global one (5 s, unset): the warning says which it used.
    await cliInOk(data, ['server', 'config', 'g1', 'custom.lifecycle_notifications.delay_s', '0'], on)
    await cliInOk(data, ['server', 'start', 'g1'], on)
    await cliInOk(data, ['server', 'stop', 'g1'], on)
    // No players protocol: nobody can be known to be offline, so it is warned (and never asked `list`).
    expect(game.received()).to.deep.equal(['broadcast Server stopping in 0 seconds.', 'quit'])
    await cliInOk(data, ['server', 'start', 'g1'], on)
    await cliInOk(data, ['server', 'restart', 'g1'], on)
    await cliInOk(data, ['server', 'stop', 'g1'], on)
    expect(game.received().slice(2)).to.deep.equal([
      'broadcast Server restarting in 0 seconds.',
      'quit',
      'broadcast Server stopping in 0 seconds.',
      'quit',
    ])
  })

  it('sends a generic game without a say command nothing before a stop (issue 19)', async () => {
    const data = gameDataDir()
    const on = { SM_DEFAULT_PLUGINS: 'on' }
    await managerOn(data, { defaultPlugins: true })
    const game = recordingGame()
    await addGame(data, 'g1', game.dir)
    await cliInOk(data, ['setting', 'set', 'custom.lifecycle_notifications.delay_s', '0'], on)
    await cliInOk(data, ['server', 'start', 'g1'], on)
    await cliInOk(data, ['server', 'stop', 'g1'], on)
    expect(game.received()).to.deep.equal(['quit'])
  })
})

describe('services/servers: schedules', function () {
  this.timeout(60_000)

  it('runs a schedule in the manager as a task with a servers:schedule_ran fact, lists and removes it, and refuses bad ones', async () => {
    const data = gameDataDir()
    const manager = await spawnManager(data)
    try {
      await waitForLine(manager, /^ready in/)
      await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
      const bad = await cliIn(data, ['server', 'schedule', 'add', 's1', '--cron', 'every day', '--action', 'backup'])
      expect(bad.stderr).to.include('[SM_ERR_SCHEDULE_INVALID]')
      const noCommand = await cliIn(data, [
        ...['server', 'schedule', 'add', 's1'],
        ...['--cron', '* * * * *', '--action', 'command'],
      ])
      expect(noCommand.stderr).to.include('[SM_ERR_SCHEDULE_INVALID]')
      await cliInOk(data, ['server', 'start', 's1'])
      const follower = spawnCli(data, ['server', 'logs', 's1', '--follow', '--lines', '0'])
      try {
        // Every second, so the test need not wait for a minute boundary.
        const tick = waitForLine(follower, /\[Server\] scheduled hello/)
        let added = { id: '' }
        // Its first run's fact, seen on the manager's bus: read below while the manager runs.
        await managerEvent(
          data,
          'servers:schedule_ran',
          () => true,
          async () => {
            added = JSON.parse(
              await cliInOk(data, [
                ...['server', 'schedule', 'add', 's1', '--cron', '* * * * * *'],
                ...['--action', 'command', '--command', 'say scheduled hello', '--json'],
              ]),
            )
          },
        )
        await tick
        const list = JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', 's1', '--json']))
        expect(list.map((s: { id: string }) => s.id)).to.deep.equal([added.id])
        expect(await cliInOk(data, ['server', 'schedule', 'remove', added.id])).to.match(/removed/)
        expect(JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', '--json']))).to.deep.equal([])
      } finally {
        follower.kill('SIGKILL')
      }
      const ran = JSON.parse(await cliInOk(data, ['events', '--type', 'servers:schedule_ran', '--json']))
      expect(ran[0].payload).to.deep.include({ server: 's1', action: 'command', result: { status: 'success' } })
      expect(ran[0].actor).to.match(/^schedule:/)
      const tasks = JSON.parse(await cliInOk(data, ['tasks', '--json']))
      expect(tasks.some((t: { name: string }) => t.name === 'schedule command s1')).to.equal(true)
      await cliInOk(data, ['server', 'stop', 's1'])
      expect(await stop(manager)).to.equal(0)
    } finally {
      manager.kill('SIGKILL')
    }
  })
})
