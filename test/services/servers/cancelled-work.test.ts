import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import {
  constants,
  existsSync,
  mkdirSync,
  openSync,
  closeSync as rawClose,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate } from 'node:timers/promises'
import { expect } from 'chai'
import { extractZip, listTree, writeZip } from '../../../services/servers/backups/archive'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { exited, fakeBedrockDir, gameDataDir, nextLine, stoppedBedrock } from '../../helpers/game'
import { plugin, writePlugins } from '../../helpers/plugins'
import { spawnCli, spawnManager, stop } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/*
 * Processes stay where the process is the point: the CLI whose backup or restore is cancelled
 * (it exits non-zero, SM_ERR_TASK_CANCELLED), and the manager whose output says how the task
 * ended and whose open files show a cancelled copy's FIFO read has ended. The settings read at
 * the manager's start, the commands to it and the checks run in-process (cliIn).
 */

/**
 * Resolves once process `pid` no longer has `file` open. A read of a FIFO that a cancelled copy
 * left waiting ends only at the writer's close, a moment after it: a writer opened before then
 * would meet that old reader instead of the next copy's.
 */
async function untilClosedBy(pid: number, file: string): Promise<void> {
  const target = realpathSync(file)
  const holds = () =>
    readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === target
      } catch {
        return false // closed while we looked
      }
    })
  while (holds()) await setImmediate()
}

/** The manager's output, collected, and a promise of its first line matching `pattern`. */
function output(child: ChildProcessWithoutNullStreams) {
  let text = ''
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = []
  const check = () => {
    for (const w of [...waiters]) {
      const line = text.split('\n').find((l) => w.pattern.test(l))
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(line)
      }
    }
  }
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk) => {
      text += chunk
      check()
    })
  return {
    line: (pattern: RegExp) =>
      new Promise<string>((resolve) => {
        waiters.push({ pattern, resolve })
        check()
      }),
    text: () => text,
  }
}

/** The task's id as `tasks` prints it (8 characters), once the named task is running (asked in-process of the running manager). */
async function shortId(data: string, name: string): Promise<string> {
  const line = (await cliInOk(data, ['tasks'])).split('\n').find((l) => l.includes(name) && / running /.test(l))
  if (!line) throw new Error(`no running task '${name}' in:\n${await cliInOk(data, ['tasks'])}`)
  return line.slice(0, 8)
}

describe('services/servers: cancelling a backup stops its work and resumes the world (issue 18, tasks cancel)', function () {
  this.timeout(120_000)

  it('tasks cancel of a hot backup waiting on save query resumes the world at once, sends no more save query and leaves no .part', async () => {
    const data = gameDataDir()
    // save query answers "not completed" until the gate exists, and it never will.
    const gate = join(tempDir(), 'query-gate')
    const dir = fakeBedrockDir({ env: { FAKE_QUERY_GATE: gate } })
    // Read when the manager starts: the one command before it.
    await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
    const files = RunFiles.of(data, 's1')
    const manager = await spawnManager(data)
    const out = output(manager)
    try {
      await out.line(/^ready in/)
      await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
      await cliInOk(data, ['server', 'start', 's1'])
      const querying = nextLine(files.log, /A previous save has not been completed/)
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      let stderr = ''
      backup.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      await querying
      const id = await shortId(data, 'backup s1')
      const resumed = nextLine(files.log, /Changes to the world are resumed/)
      const ended = out.line(/ended after it was cancelled/)
      const cancelledAt = statSync(files.log).size
      const cancel = await cliIn(data, ['tasks', 'cancel', id])
      expect(cancel.code, cancel.stderr).to.equal(0)
      expect(cancel.stdout).to.match(/Cancelled the task 'backup s1'/)
      await resumed
      // The work itself stopped: it ended with the cancel, not with the 60 s query limit.
      expect(await ended)
        .to.match(/cancel/i)
        .and.not.match(/did not finish preparing/)
      expect(await s1HoldState(data)).to.equal('not held')
      // At most the one query in flight when it was cancelled: no more every 0.5 s. Counted from
      // the world's resume, which the cancel did: how long the cancel's own process took to start
      // (a loaded machine) is not what this checks.
      const log = readFileSync(files.log, 'utf8')
      const after = log.slice(log.indexOf('Changes to the world are resumed', cancelledAt))
      expect(after.match(/A previous save has not been completed/g) ?? []).to.have.length.at.most(1)
      expect(await exited(backup)).to.not.equal(0)
      expect(stderr).to.match(/SM_ERR_TASK_CANCELLED/)
      const backups = join(data, 'backups', 's1')
      expect(existsSync(backups) ? readdirSync(backups) : []).to.deep.equal([])
      // The world's lock is free: a backup that can finish now does.
      writeFileSync(gate, '')
      const next = JSON.parse(await cliInOk(data, ['server', 'backup', 's1', '--json']))
      expect(next.method).to.equal('hot')
      expect(readdirSync(backups).filter((f) => f.endsWith('.part'))).to.deep.equal([])
    } finally {
      await stop(manager)
    }
  })

  it('tasks cancel of a hot backup mid-copy resumes the world and removes the .part, though the copy waits on a file', async () => {
    const data = gameDataDir()
    const dir = fakeBedrockDir({ env: { FAKE_FIFO: '100' } })
    await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
    const fifo = join(dir, 'worlds', 'Bedrock level', 'db', 'gate.fifo')
    const files = RunFiles.of(data, 's1')
    const manager = await spawnManager(data)
    const out = output(manager)
    let writer: FileHandle | undefined
    try {
      await out.line(/^ready in/)
      await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
      await cliInOk(data, ['server', 'start', 's1'])
      const backup = spawnCli(data, ['server', 'backup', 's1'])
      // Opens once the copy opened the FIFO: the world is held and the archive half written.
      writer = await open(fifo, 'w')
      expect(await s1HoldState(data)).to.equal('held')
      const parts = () => readdirSync(join(data, 'backups', 's1')).filter((f) => f.endsWith('.part'))
      expect(parts()).to.have.length(1)
      const resumed = nextLine(files.log, /Changes to the world are resumed/)
      const ended = out.line(/ended after it was cancelled/)
      const cancel = await cliIn(data, ['tasks', 'cancel', await shortId(data, 'backup s1')])
      expect(cancel.code, cancel.stderr).to.equal(0)
      await resumed
      expect(await ended).to.match(/cancel/i)
      expect(await s1HoldState(data)).to.equal('not held')
      expect(parts()).to.deep.equal([])
      expect(readdirSync(join(data, 'backups', 's1'))).to.deep.equal([])
      expect(await exited(backup)).to.not.equal(0)
      await writer.close()
      writer = undefined
      await untilClosedBy(manager.pid as number, fifo)
      // The manager lives on, and the next backup completes.
      expect(manager.exitCode).to.equal(null)
      const next = cliIn(data, ['server', 'backup', 's1', '--json'])
      writer = await open(fifo, 'w')
      await writer.write(Buffer.alloc(100, 1))
      await writer.close()
      writer = undefined
      expect((await next).code).to.equal(0)
      expect(parts()).to.deep.equal([])
    } finally {
      if (!writer)
        try {
          rawClose(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK))
        } catch {}
      await writer?.close().catch(() => {})
      await stop(manager)
    }
  })

  it('tasks cancel of a restore or a cold backup that has not begun its copy leaves the world and the backups as they were', async () => {
    const data = gameDataDir()
    // A plugin whose before hooks wait until the test lets them go: the task runs, its copy has not begun.
    const record = join(tempDir(), 'hooks.log')
    writeFileSync(record, '')
    const gate = `${record}.go`
    const wait = `async function wait() {
      const fs = require('node:fs')
      fs.appendFileSync(${JSON.stringify(record)}, 'waiting\\n')
      while (!fs.existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20))
      fs.rmSync(${JSON.stringify(gate)})
    }`
    writePlugins(data, {
      'gate.ts': `${wait}\n${plugin('Gate', 'async beforeRestore() { await wait() }\n  async beforeBackup() { await wait() }')}`,
    })
    // Read when the manager starts: the commands before it.
    await cliInOk(data, ['setting', 'set', 'plugins.hook_timeout_ms', '600000'])
    await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
    const manager = await spawnManager(data)
    const out = output(manager)
    const backups = join(data, 'backups', 's1')
    try {
      await out.line(/^ready in/)
      const { dir, world } = await stoppedBedrock(data)
      const archive = JSON.parse(await cliInOk(data, ['server', 'backup', 's1', '--json'])).files[0].file
      writeFileSync(join(world, 'changed-after.txt'), 'kept')
      await cliInOk(data, ['plugin', 'enable', 'gate'])
      for (const [args, name] of [
        [['server', 'restore', 's1', archive], 'restore s1'],
        [['server', 'backup', 's1'], 'backup s1'],
      ] as const) {
        const waiting = nextLine(record, /waiting/)
        const work = spawnCli(data, [...args])
        await waiting
        const ended = out.line(new RegExp(`task '${name}' .* ended after it was cancelled`))
        const cancel = await cliIn(data, ['tasks', 'cancel', await shortId(data, name)])
        expect(cancel.code, cancel.stderr).to.equal(0)
        writeFileSync(gate, '')
        expect(await ended, name).to.match(/SM_ERR_TASK_CANCELLED|cancelled/)
        expect(await exited(work)).to.not.equal(0)
        // Nothing swapped in, nothing written: the world as it was, the one archive there was.
        expect(readFileSync(join(world, 'changed-after.txt'), 'utf8')).to.equal('kept')
        expect(readdirSync(join(dir, 'worlds')), name).to.deep.equal(['Bedrock level'])
        expect(readdirSync(backups), name).to.deep.equal([archive])
      }
    } finally {
      await stop(manager)
    }
  })

  it('a cancelled archive write (a cold backup copy) stops with the cancel, its .part removed, also while a file read waits', async () => {
    const dir = tempDir()
    const fifo = join(dir, 'waits.fifo')
    execFileSync('mkfifo', [fifo])
    writeFileSync(join(dir, 'a.txt'), 'a'.repeat(10_000))
    const target = join(dir, 'out', 'world.zip')
    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    const writing = writeZip(
      target,
      [
        { path: join(dir, 'a.txt'), name: 'a.txt', size: 10_000, mtime: new Date() },
        { path: fifo, name: 'waits.fifo', size: 100, mtime: new Date() },
      ],
      undefined,
      controller.signal,
    )
    const writer = await open(fifo, 'w') // the copy reached the FIFO and waits on it
    try {
      expect(existsSync(`${target}.part`)).to.equal(true)
      controller.abort(reason)
      expect(await writing.catch((e) => e)).to.equal(reason)
      expect(readdirSync(join(dir, 'out'))).to.deep.equal([])
    } finally {
      await writer.close()
    }
    // Cancelled before it began: nothing is written.
    expect(await writeZip(target, [], undefined, controller.signal).catch((e) => e)).to.equal(reason)
    expect(readdirSync(join(dir, 'out'))).to.deep.equal([])
  })

  it('a cancelled extraction (a restore before its swap) stops with the cancel', async () => {
    const dir = tempDir()
    const source = join(dir, 'src')
    mkdirSync(source)
    for (let i = 0; i < 20; i++) writeFileSync(join(source, `f${i}.txt`), String(i).repeat(1000))
    const archive = join(dir, 'a.zip')
    await writeZip(archive, listTree(source))
    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    let extracted = 0
    const extracting = extractZip(
      archive,
      join(dir, 'into'),
      (p) => {
        extracted = p.files
        if (p.bytes > 0) controller.abort(reason)
      },
      controller.signal,
    )
    expect(await extracting.catch((e) => e)).to.equal(reason)
    expect(extracted).to.be.lessThan(20)
  })
})

/** The world's hold state, as the game answers `holdstate` (asked in-process of the running manager). */
async function s1HoldState(data: string): Promise<string | undefined> {
  return /Hold state: (.*)/.exec(await cliInOk(data, ['server', 'send', 's1', 'holdstate']))?.[1]
}
