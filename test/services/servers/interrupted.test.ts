import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import {
  constants,
  existsSync,
  mkdirSync,
  openSync,
  closeSync as rawClose,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'chai'
import { knowErrors } from '../../../kernel'
import { serversErrors } from '../../../services/servers/errors'
import { SupervisorClient } from '../../../services/servers/supervisor/client'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import {
  exited,
  fakeBedrockDir,
  gameDataDir,
  nextLine,
  runState,
  stoppedBedrock,
  untilGone,
  untilSupervisorEnds,
} from '../../helpers/game'
import { spawnCli, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// The servers' codes, known as in the processes that raise them (a host agent, a CLI).
knowErrors(serversErrors)

/** A manager in the foreground, once ready (web off: no port shared with other test runs). */
async function startManager(data: string): Promise<ChildProcessWithoutNullStreams> {
  await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
  const manager = await spawnManager(data)
  await waitForLine(manager, /^ready in/)
  return manager
}

/**
 * A bedrock server whose world holds a FIFO that save query lists at 100 bytes: a hot backup's
 * copy blocks on it, in the middle of the archive, until the test writes to it.
 */
async function heldServer(data: string, env: Record<string, string> = {}) {
  const dir = fakeBedrockDir({ env: { FAKE_FIFO: '100', ...env } })
  await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
  await cliInOk(data, ['server', 'start', 's1'])
  const fifo = join(dir, 'worlds', 'Bedrock level', 'db', 'gate.fifo')
  const files = RunFiles.of(data, 's1')
  let writer: FileHandle | undefined
  return {
    dir,
    files,
    /** Resolves once a backup's copy opened the FIFO: the world is held and the archive half written. */
    async midCopy(): Promise<void> {
      writer = await open(fifo, 'w')
    },
    /** Lets the copy finish: the 100 listed bytes, then end of file. */
    async release(): Promise<void> {
      await writer?.write(Buffer.alloc(100, 1))
      await writer?.close()
      writer = undefined
    },
    /** Unblocks a writer still waiting for a reader, and closes it (cleanup). */
    async close(): Promise<void> {
      if (!writer) {
        try {
          rawClose(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK))
        } catch {}
      }
      await writer?.close().catch(() => {})
      writer = undefined
    },
    parts: () => readdirSync(join(data, 'backups', 's1')).filter((f) => f.endsWith('.part')),
    holdState: async () => /Hold state: (.*)/.exec(await cliInOk(data, ['server', 'send', 's1', 'holdstate']))?.[1],
  }
}

/**
 * Resolves once the game said its world saves again, with the supervisor's log line saying why it
 * resumed it (written once the hold record is gone). Follow both before the kill.
 */
function resumed(files: RunFiles): Promise<string> {
  const game = nextLine(files.log, /Changes to the world are resumed/)
  const supervisor = nextLine(files.supervisorLog, /resumed the world's saving/)
  return game.then(() => supervisor)
}

/** A record in the run directory (hold.json, intent.json), or undefined. */
function record(files: RunFiles, name: string): { holder: { pid: number } } | undefined {
  const path = join(files.dir, name)
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined
}

describe('services/servers: a hot backup interrupted by kill -9 of any process leaves the world resumed (issue 18 item 20)', function () {
  this.timeout(60_000)

  it('resumes at once when the CLI doing the backup is killed mid-copy; the next backup removes its .part', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    try {
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      await s.midCopy()
      expect(await s.holdState()).to.equal('held')
      const why = resumed(s.files)
      process.kill(backup.pid as number, 'SIGKILL')
      expect(await why)
        .to.include(`PID ${backup.pid} `)
        .and.match(/its holder closed the connection/)
      await s.close()
      expect(await s.holdState()).to.equal('not held')
      expect(record(s.files, 'hold.json')).to.equal(undefined)
      expect(s.parts()).to.have.length(1)

      // The next backup completes and removes what the interrupted one left.
      const next = spawnCli(data, ['server', 'backup', 's1', '--json'])
      await s.midCopy()
      await s.release()
      expect(await exited(next)).to.equal(0)
      expect(s.parts()).to.deep.equal([])
      expect(await s.holdState()).to.equal('not held')
    } finally {
      await s.close()
    }
  })

  it('resumes at once when the manager doing the backup is killed; the next manager removes the .part', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    try {
      const manager = await startManager(data)
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      await s.midCopy()
      const why = resumed(s.files)
      process.kill(manager.pid as number, 'SIGKILL')
      expect(await why).to.include(`PID ${manager.pid} `)
      await s.close()
      expect(await exited(backup)).to.not.equal(0)
      expect(await s.holdState()).to.equal('not held')
      expect(s.parts()).to.have.length(1)

      const second = await startManager(data)
      expect(s.parts()).to.deep.equal([])
      expect(await stop(second)).to.equal(0)
    } finally {
      await s.close()
    }
  })

  it('resumes when the manager doing the backup gets SIGTERM', async () => {
    const data = gameDataDir()
    // The save query is answered "not completed" until the gate exists: the manager waits, holding the world.
    const gate = join(tempDir(), 'query-gate')
    const s = await heldServer(data, { FAKE_QUERY_GATE: gate })
    try {
      const manager = await startManager(data)
      const querying = nextLine(s.files.log, /A previous save has not been completed/)
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      await querying
      const why = resumed(s.files)
      manager.kill('SIGTERM')
      expect(await why).to.include(`PID ${manager.pid} `)
      await exited(manager)
      await exited(backup)
      expect(await s.holdState()).to.equal('not held')
    } finally {
      await s.close()
    }
  })

  it('finishes a backup whose supervisor was killed mid-copy: a new supervisor adopts the game, the archive is listed and the world resumed', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    try {
      const backup = spawnCli(data, ['server', 'backup', 's1', '--json'])
      let stderr = ''
      backup.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      let stdout = ''
      backup.stdout.on('data', (chunk) => {
        stdout += chunk
      })
      await s.midCopy()
      const supervisor = runState(data, 's1')?.supervisor?.pid as number
      process.kill(supervisor, 'SIGKILL')
      await untilGone(supervisor)
      await s.release()
      expect(await exited(backup), stderr).to.equal(0)
      expect(stderr).to.not.match(/failed/)
      const file = JSON.parse(stdout).files[0].file
      const listed = JSON.parse(await cliInOk(data, ['server', 'backups', 's1', '--json'])).map(
        (b: { file: string }) => b.file,
      )
      expect(listed).to.include(file)
      expect(await s.holdState()).to.equal('not held')
      expect(record(s.files, 'hold.json')).to.equal(undefined)
      const status = JSON.parse(await cliInOk(data, ['server', 'status', 's1', '--json']))
      expect(status).to.include({ status: 'running', adopted: true })
    } finally {
      await s.close()
    }
  })

  it('finishes a backup the manager runs whose supervisor was killed mid-copy: the manager replaces it at once and resumes through it', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    try {
      const manager = await startManager(data)
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      let stderr = ''
      backup.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      await s.midCopy()
      const supervisor = runState(data, 's1')?.supervisor?.pid as number
      const game = nextLine(s.files.log, /Changes to the world are resumed/)
      process.kill(supervisor, 'SIGKILL')
      await untilGone(supervisor)
      await s.release()
      const code = await exited(backup)
      expect(code, `${stderr}\n${logsOf(data, s.files)}`).to.equal(0)
      await game
      expect(await s.holdState()).to.equal('not held')
      expect(record(s.files, 'hold.json')).to.equal(undefined)
      const status = JSON.parse(await cliInOk(data, ['server', 'status', 's1', '--json']))
      expect(status).to.include({ status: 'running', adopted: true })
      expect(status.supervisorPid).to.not.equal(supervisor)
      expect(await stop(manager)).to.equal(0)
    } finally {
      await s.close()
    }
  })

  it('resumes at the next command when the supervisor and then the process holding the world were both killed; server prune removes the .part', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    try {
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      await s.midCopy()
      const supervisor = runState(data, 's1')?.supervisor?.pid as number
      process.kill(supervisor, 'SIGKILL')
      await untilGone(supervisor)
      process.kill(backup.pid as number, 'SIGKILL')
      await exited(backup)
      await s.close()
      const why = resumed(s.files)
      expect(JSON.parse(await cliInOk(data, ['server', 'status', 's1', '--json'])).status).to.equal('running')
      expect(await why).to.match(/its holder is gone/)
      expect(await s.holdState()).to.equal('not held')
      expect(s.parts()).to.have.length(1)
      expect(await cliInOk(data, ['server', 'prune', 's1'])).to.match(/\.part/)
      expect(s.parts()).to.deep.equal([])
    } finally {
      await s.close()
    }
  })

  it('removes the .part a world export killed mid-copy left at its target, at the next export or prune', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    const target = join(tempDir('sm-export-'), 'world.mcworld')
    /** An export killed mid-copy, once the world is resumed: it leaves its .part at the target. */
    const killedExport = async () => {
      const exporting = spawnCli(data, ['server', 'export', 's1', target])
      await s.midCopy()
      const why = resumed(s.files)
      process.kill(exporting.pid as number, 'SIGKILL')
      await exited(exporting)
      await why
      await s.close()
      expect(existsSync(`${target}.part`), 'the export left no .part to remove').to.equal(true)
    }
    try {
      await killedExport()
      expect(await cliInOk(data, ['server', 'prune', 's1'])).to.include(`${target}.part`)
      expect(existsSync(`${target}.part`)).to.equal(false)
      expect(record(s.files, 'export.json')).to.equal(undefined)

      // Killed again, the next export removes it and writes its own.
      await killedExport()
      const next = spawnCli(data, ['server', 'export', 's1', target])
      await s.midCopy()
      await s.release()
      expect(await exited(next)).to.equal(0)
      expect(existsSync(target)).to.equal(true)
      expect(existsSync(`${target}.part`)).to.equal(false)
    } finally {
      await s.close()
    }
  })

  it("names the supervisor's own log when it went away under a client", async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'start', 's1'])
    const files = RunFiles.of(data, 's1')
    const client = (await SupervisorClient.connect(files, 's1')) as SupervisorClient
    const closed = new Promise<void>((resolve) => client.onClose(resolve))
    process.kill(runState(data, 's1')?.supervisor?.pid as number, 'SIGKILL')
    await closed
    const error = await client.status().then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).to.include(`Its own log is ${files.supervisorLog}.`)
  })
})

describe('services/servers: work interrupted by kill -9 is finished on the next start (issue 18 item 21)', function () {
  this.timeout(60_000)

  /** A `restore --stop` killed while the server it stopped is stopping: it is left stopped. */
  async function interruptedRestore() {
    const data = gameDataDir()
    const gate = join(tempDir(), 'stop-gate')
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_STOP_GATE: gate } })])
    await cliInOk(data, ['server', 'start', 's1'])
    const file = JSON.parse(await cliInOk(data, ['server', 'backup', 's1', '--json'])).files[0].file
    const files = RunFiles.of(data, 's1')
    const stopping = nextLine(files.log, /Server stop requested/)
    const restore = spawnCli(data, ['server', 'restore', 's1', file, '--stop'])
    await stopping
    process.kill(restore.pid as number, 'SIGKILL')
    await exited(restore)
    writeFileSync(gate, '')
    await untilSupervisorEnds(data, 's1')
    expect(runState(data, 's1')?.status).to.equal('stopped')
    return { data, files }
  }

  it('starts a server an interrupted restore --stop left stopped when the next manager starts', async () => {
    const { data, files } = await interruptedRestore()
    const manager = await startManager(data)
    expect(runState(data, 's1')?.status).to.equal('running')
    expect(record(files, 'intent.json')).to.equal(undefined)
    expect(JSON.parse(await cliInOk(data, ['server', 'status', 's1', '--json'])).status).to.equal('running')
    expect(await cliInOk(data, ['server', 'stop', 's1'])).to.match(/stopped/)
    expect(await stop(manager)).to.equal(0)
  })

  it('puts the world back that a restore killed between its two renames left aside, and removes its half extraction, at the next manager start', async () => {
    const data = gameDataDir()
    const { dir, world } = await stoppedBedrock(data)
    const level = readFileSync(join(world, 'level.dat'))
    // What #replaceWorld leaves when killed after moving the world aside: named by the PID of a process now gone.
    const gone = spawn(process.execPath, ['-e', ''])
    await exited(gone)
    renameSync(world, `${world}.outgoing-${gone.pid}`)
    mkdirSync(`${world}.incoming-${gone.pid}/db`, { recursive: true })
    const manager = await startManager(data)
    expect(readFileSync(join(world, 'level.dat')).equals(level)).to.equal(true)
    expect(readdirSync(join(dir, 'worlds'))).to.deep.equal(['Bedrock level'])
    expect(await stop(manager)).to.equal(0)
  })

  it('starts it at the next command on that server when no manager runs', async () => {
    const { data, files } = await interruptedRestore()
    const r = await cliIn(data, ['server', 'status', 's1', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout).status).to.equal('running')
    expect(r.stderr).to.match(/left stopped by a restore that did not finish/)
    expect(record(files, 'intent.json')).to.equal(undefined)
    expect(await cliInOk(data, ['server', 'stop', 's1'])).to.match(/stopped/)
  })
})

/** The run's supervisor.log and the host agent's log, as far as they exist: what went wrong, for a failed assertion. */
function logsOf(data: string, files: RunFiles): string {
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '(none)')
  return `supervisor.log:\n${read(files.supervisorLog)}\nagent.log:\n${read(join(data, 'agent', 'agent.log'))}`
}
