import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { Kernel } from '../../../manager'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { exited, gameDataDir, killServers, nextLine, nodeGameArgs, runState, untilGone } from '../../helpers/game'
import { spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { afterItsUser } from '../../helpers/run-end'
import { archivedState } from '../../helpers/slow-flush'
import { tempDir } from '../../helpers/temp-dir'
import { http, startWeb } from '../../helpers/web'

/**
 * The tests' stand-in for a console game (not Bedrock): it appends to its world every few ms
 * while saving is on, keeps what it has not written while saving is off, and answers `save-off`,
 * `save-all flush` (writing all it holds, then `Saved the game: <state of the world file>`),
 * `save-on` and `stop` (`Stopping: <state>`). With FLUSH_GATE=<path>, a flush goes on, printing
 * `Saving chunks`, until that file exists; with REFUSE='a;b', it answers `Unknown command: a` to those.
 */
const GAME = `'use strict'
const fs = require('node:fs')
const { createHash } = require('node:crypto')
const region = 'world/region.dat'
fs.mkdirSync('world', { recursive: true })
if (!fs.existsSync('world/level.dat')) fs.writeFileSync('world/level.dat', 'a stand-in world\\n')
const out = (line) => fs.writeSync(1, line + '\\n')
const state = () => {
  const bytes = fs.existsSync(region) ? fs.readFileSync(region) : Buffer.alloc(0)
  return 'sha256=' + createHash('sha256').update(bytes).digest('hex') + ' bytes=' + bytes.length
}
let saving = true
let pending = ''
let tick = 0
const write = () => {
  fs.appendFileSync(region, pending)
  pending = ''
}
setInterval(() => {
  pending += 'tick ' + ++tick + '\\n'
  if (saving) write()
}, 3)
const flush = () => {
  write()
  out('Saved the game: ' + state())
}
const refused = (process.env.REFUSE || '').split(';')
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim()
  if (refused.includes(command)) {
    out('Unknown command: ' + command)
  } else if (command === 'save-off') {
    saving = false
    out('Automatic saving is now disabled')
  } else if (command === 'save-all flush') {
    const gate = process.env.FLUSH_GATE
    if (!gate) return flush()
    out('Saving chunks')
    const flushing = setInterval(() => {
      if (!fs.existsSync(gate)) return out('Saving chunks')
      clearInterval(flushing)
      flush()
    }, 100)
  } else if (command === 'save-on') {
    saving = true
    write()
    out('Automatic saving is now enabled')
  } else if (command === 'stop') {
    write()
    out('Stopping: ' + state())
    process.exit(0)
  }
})
out('ready')
`

const HOT_BACKUP = 'save-off;save-all flush;save-on'

/*
 * Commands run in-process (cliIn), against the manager that runs or one booted for the command.
 * Processes stay where the process is the point: the CLI holding the world in a hot backup, killed
 * with SIGKILL or cancelled (it exits non-zero), and, for the cancel, the manager whose output
 * says how the task ended.
 */

/** A directory holding the stand-in game. */
function gameDir(): string {
  const dir = tempDir('sm-game-')
  writeFileSync(join(dir, 'game.js'), GAME)
  return dir
}

/** `server add` arguments for the stand-in in `dir`, with its hot-backup commands and their done line when `hot`. */
function addArgs(name: string, dir: string, hot: boolean, env: Record<string, string> = {}): string[] {
  return nodeGameArgs(
    name,
    dir,
    '--world-dir',
    'world',
    '--ready-line',
    '^ready$',
    ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    ...(hot ? ['--hot-backup', HOT_BACKUP, '--hot-backup-done', '^Saved the game: '] : []),
  )
}

/** The state the game printed in `line` (`Saved the game: <state>`, `Stopping: <state>`). */
const printed = (line: string) => /sha256=\S+ bytes=\d+/.exec(line)?.[0]

const gamePid = (data: string, name: string) => runState(data, name)?.game?.pid

/**
 * Follows one backup of `name` (started by `begin`) on its console: hot means the game printed
 * its flush, kept its PID and saves again, and the archive holds the world exactly as flushed;
 * stop-start means it was stopped (the archive holds the world as it stopped) and runs again.
 */
async function expectBackup<R extends { method: string; warning?: string }>(
  data: string,
  name: string,
  method: 'hot' | 'stop-start',
  begin: () => Promise<R>,
  archive: (reply: R) => string,
): Promise<R> {
  const log = RunFiles.of(data, name).log
  const pid = gamePid(data, name)
  const flushed = nextLine(log, method === 'hot' ? /Saved the game: / : /Stopping: /)
  const savingAgain = nextLine(log, method === 'hot' ? /Automatic saving is now enabled/ : /^ready$/)
  const reply = await begin()
  expect(reply.method, JSON.stringify(reply)).to.equal(method)
  expect(await archivedState(archive(reply))).to.equal(printed(await flushed))
  await savingAgain
  if (method === 'hot') {
    expect(gamePid(data, name)).to.equal(pid)
    expect(reply.warning).to.equal(undefined)
  } else {
    expect(gamePid(data, name)).to.not.equal(pid)
    expect(reply.warning).to.match(
      new RegExp(`^'${name}' was stopped for a backup and started again: its profile \\(generic\\) has no hot backup`),
    )
  }
  expect(runState(data, name)?.status).to.equal('running')
  return reply
}

describe('services/servers: one backup policy, wherever it is asked for (issue 19, build items 2 and 3)', function () {
  this.timeout(120_000)

  it('backs up and exports from the CLI: hot for a generic server with hot-backup commands (exactly as flushed, same PID), else stopped, copied and started with a warning', async () => {
    const data = gameDataDir()
    // The manager holds the world here; a CLI with none holds it itself in the tests below (killed, cancelled).
    await managerOn(data)
    await cliInOk(data, addArgs('hot', gameDir(), true))
    await cliInOk(data, addArgs('plain', gameDir(), false))
    await cliInOk(data, ['server', 'start', 'hot'])
    await cliInOk(data, ['server', 'start', 'plain'])
    const backups = (name: string) => join(data, 'backups', name)

    await expectBackup(
      data,
      'hot',
      'hot',
      async () => JSON.parse(await cliInOk(data, ['server', 'backup', 'hot', '--json'])),
      (reply) => join(backups('hot'), reply.files[0].file),
    )
    let stderr = ''
    const plain = await expectBackup(
      data,
      'plain',
      'stop-start',
      async () => {
        const r = await cliIn(data, ['server', 'backup', 'plain', '--json'])
        expect(r.code, r.stderr).to.equal(0)
        stderr = r.stderr
        return JSON.parse(r.stdout)
      },
      (reply) => join(backups('plain'), reply.files[0].file),
    )
    expect(plain.files[0].file).to.match(/^world_.*\.zip$/)
    expect(stderr).to.include(`Warning: ${plain.warning}`)

    // An export is the same copy, named for what it is (.zip, not .mcworld) in a directory.
    const exports = tempDir('sm-export-')
    await expectBackup(
      data,
      'hot',
      'hot',
      async () => JSON.parse(await cliInOk(data, ['server', 'export', 'hot', exports, '--json'])),
      (reply) => reply.file,
    )
    expect(readdirSync(exports)).to.deep.equal(['hot.zip'])
  })

  it('backs up from the API and from a schedule by the same policy', async () => {
    const web = await startWeb()
    afterItsUser(() => killServers(web.dataDir))
    const { manager, dataDir: data } = web
    try {
      // As `server-manager start` does: it serves the CLI and runs the schedules from now on.
      await manager.bus.emit('manager:started', {})
      await cliInOk(data, addArgs('hot', gameDir(), true))
      await cliInOk(data, addArgs('plain', gameDir(), false))
      await cliInOk(data, ['server', 'start', 'hot'])
      await cliInOk(data, ['server', 'start', 'plain'])
      const archive = (name: string) => (reply: { files: { file: string }[] }) =>
        join(data, 'backups', name, String(reply.files[0]?.file))

      for (const [name, method] of [
        ['hot', 'hot'],
        ['plain', 'stop-start'],
      ] as const) {
        // `{}`: what the web UI's "Back up now" and any client send.
        await expectBackup(data, name, method, () => apiBackup(web.url, web.admin, manager, name), archive(name))
        await expectBackup(data, name, method, () => scheduledBackup(manager, name), archive(name))
      }
    } finally {
      await manager.stop()
    }
  })

  it("fails a hot backup, writing nothing, when the game answers one of its commands with one of the server's error lines, and turns saving back on", async () => {
    const data = gameDataDir()
    await managerOn(data)
    await cliInOk(data, [
      ...addArgs('g', gameDir(), true, { REFUSE: 'save-all flush' }),
      '--error-line',
      '^Unknown command',
    ])
    await cliInOk(data, ['server', 'start', 'g'])
    const log = RunFiles.of(data, 'g').log
    const savingAgain = nextLine(log, /Automatic saving is now enabled/)
    const r = await cliIn(data, ['server', 'backup', 'g'])
    expect(r.code, r.stdout).to.not.equal(0)
    expect(r.stderr)
      .to.match(/SM_ERR_\w+/)
      .and.include("'save-all flush'")
      .and.include('Unknown command: save-all flush')
    await savingAgain
    const folder = join(data, 'backups', 'g')
    expect(existsSync(folder) ? readdirSync(folder) : []).to.deep.equal([])
  })

  it('turns saving back on when the CLI doing a hot backup is killed with the world held, and the next backup completes', async () => {
    const data = gameDataDir()
    const { files, flushingBackup, openGate } = await gatedServer(data)
    const backup = await flushingBackup()
    // Saving is off and the world held for this CLI, with what resumes it recorded.
    const hold = JSON.parse(readFileSync(files.hold, 'utf8'))
    expect(hold).to.deep.include({ resume: ['save-on'] })
    expect(hold.holder.pid).to.equal(backup.pid)
    const savingAgain = nextLine(files.log, /Automatic saving is now enabled/)
    const why = nextLine(files.supervisorLog, /resumed the world's saving/)
    process.kill(backup.pid as number, 'SIGKILL')
    await exited(backup)
    openGate() // the flush may end now: it no longer matters
    await savingAgain
    expect(await why)
      .to.include(`PID ${backup.pid} `)
      .and.match(/its holder closed the connection/)
    expect(existsSync(files.hold)).to.equal(false)

    const next = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--json']))
    expect(next.method).to.equal('hot')
    expect(readdirSync(join(data, 'backups', 'g'))).to.deep.equal([next.files[0].file])
  })

  it('turns saving back on at the next command when the supervisor and then the CLI holding the world were both killed: the adopting supervisor sends the recorded commands', async () => {
    const data = gameDataDir()
    const { files, flushingBackup, openGate } = await gatedServer(data)
    const backup = await flushingBackup()
    try {
      const supervisor = runState(data, 'g')?.supervisor?.pid as number
      process.kill(supervisor, 'SIGKILL')
      await untilGone(supervisor)
      process.kill(backup.pid as number, 'SIGKILL')
      await exited(backup)
      openGate()
      expect(JSON.parse(readFileSync(files.hold, 'utf8'))).to.deep.include({ resume: ['save-on'] })
      const savingAgain = nextLine(files.log, /Automatic saving is now enabled/)
      const why = nextLine(files.supervisorLog, /resumed the world's saving/)
      const status = JSON.parse(await cliInOk(data, ['server', 'status', 'g', '--json']))
      expect(status).to.include({ status: 'running', adopted: true })
      await savingAgain
      expect(await why).to.match(/its holder is gone/)
      expect(existsSync(files.hold)).to.equal(false)
    } finally {
      openGate()
      backup.kill('SIGKILL')
    }
  })

  it('tasks cancel of a hot backup waiting on its flush turns saving back on at once and writes nothing', async () => {
    const data = gameDataDir()
    // Read when the manager starts: the one command before it.
    await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
    const manager = await spawnManager(data)
    let openGate = () => {}
    try {
      await waitForLine(manager, /^ready in/)
      const gated = await gatedServer(data)
      const { files, flushingBackup, gateOpen } = gated
      openGate = gated.openGate
      const backup = await flushingBackup()
      let stderr = ''
      backup.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      const line = (await cliInOk(data, ['tasks'])).split('\n').find((l) => /backup g/.test(l) && / running /.test(l))
      expect(line, 'no running backup task').to.be.a('string')
      const savingAgain = nextLine(files.log, /Automatic saving is now enabled/)
      const ended = waitForLine(manager, /ended after it was cancelled/, { stream: 'stderr', timeoutMs: 60_000 })
      await cliInOk(data, ['tasks', 'cancel', (line as string).slice(0, 8)])
      // Resumed while the game is still flushing: the cancel did not wait for the flush.
      await savingAgain
      expect(gateOpen()).to.equal(false)
      expect(await ended).to.not.match(/did not finish/)
      expect(await exited(backup)).to.not.equal(0)
      expect(stderr).to.match(/SM_ERR_TASK_CANCELLED/)
      const folder = join(data, 'backups', 'g')
      expect(existsSync(folder) ? readdirSync(folder) : []).to.deep.equal([])
      expect(existsSync(files.hold)).to.equal(false)
    } finally {
      openGate()
      await stop(manager)
    }
  })
})

/**
 * A running stand-in `g` with hot-backup commands whose flush goes on until its gate is opened:
 * a hot backup of it holds the world (saving off) until then. Added and started in-process (to
 * the manager that runs on `data`, else one booted for each command).
 */
async function gatedServer(data: string) {
  const gate = join(tempDir(), 'flush-gate')
  await cliInOk(data, addArgs('g', gameDir(), true, { FLUSH_GATE: gate }))
  await cliInOk(data, ['server', 'start', 'g'])
  const files = RunFiles.of(data, 'g')
  return {
    files,
    /** `server backup g` in a CLI of its own, once the game is flushing: saving is off, the world held. */
    async flushingBackup() {
      const flushing = nextLine(files.log, /Saving chunks/)
      const backup = spawnCli(data, ['server', 'backup', 'g'])
      await flushing
      return backup
    },
    openGate: () => writeFileSync(gate, ''),
    gateOpen: () => existsSync(gate),
  }
}

/** `POST /api/servers/<name>/backups` with `{}`, and the task's result once it finished. */
async function apiBackup(url: string, token: string, manager: Kernel, name: string) {
  const finished = untilTaskFinished(manager)
  const reply = await http(`${url}/api/servers/${name}/backups`, { token, body: {} })
  expect(reply.status, reply.text).to.equal(202)
  await finished(reply.json.task_id)
  const task = await http(`${url}/api/tasks/${reply.json.task_id}`, { token })
  expect(task.json.task.state, task.text).to.equal('succeeded')
  return task.json.task.result
}

/** Resolves, given a task id, once that task has finished (listening from before it could). */
function untilTaskFinished(manager: Kernel): (id: string) => Promise<void> {
  const ended = new Set<string>()
  const waiters = new Map<string, () => void>()
  const listener = manager.bus.on(
    'tasks:finished',
    ({ id }) => {
      ended.add(id)
      waiters.get(id)?.()
    },
    { owner: 'test' },
  )
  return (id) =>
    new Promise<void>((resolve) => {
      if (ended.has(id)) resolve()
      else waiters.set(id, resolve)
    }).finally(() => listener.dispose())
}

/**
 * A schedule backing `name` up every second, removed by its first run (inside it, so it runs
 * once), and that backup's result as the after_backup fact and servers:schedule_ran recorded it.
 */
async function scheduledBackup(manager: Kernel, name: string) {
  const bus = manager.bus
  const ran = new Promise<{ status: string; message?: string }>((resolve) => {
    const listener = bus.on(
      'servers:schedule_ran',
      async ({ id, result }) => {
        listener.dispose()
        await bus.request('servers:schedule_remove', { id })
        resolve(result)
      },
      { owner: 'test' },
    )
  })
  await bus.request('servers:schedule_add', { name, cron: '* * * * * *', action: 'backup' })
  const result = await ran
  expect(result.status, result.message).to.equal('success')
  const [last] = (await bus.request('events:read', { types: ['after_backup'], tail: true, limit: 1 })) as {
    payload: { serverName: string; result: { method: string; warning?: string; files: { file: string }[] } }
  }[]
  if (!last) throw new Error('no after_backup fact')
  expect(last.payload.serverName).to.equal(name)
  // What the schedule said of its run is the backup's own warning.
  expect(result.message).to.equal(last.payload.result.warning)
  return last.payload.result
}
