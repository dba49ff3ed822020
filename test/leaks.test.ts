import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { expect } from 'chai'
import { processState } from '../lib/process-identity'
import { fakeBedrockDir, gameDataDir, runState } from './helpers/game'
import { findLeaks, killAndWait } from './helpers/leaks'
import { cli, run, spawnManager, waitForLine } from './helpers/run'
import { tempDir } from './helpers/temp-dir'

/**
 * Starts `script` under sh as an orphan (its parent exits at once, as a detached game's does) and
 * resolves with its PID once it has become `command` (until then it is a copy of sh, whose
 * command line holds the whole script).
 */
async function orphan(
  script: string,
  command: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const out = execFileSync('sh', ['-c', `(${script}) </dev/null >/dev/null 2>&1 & echo $!`], {
    cwd: options.cwd ?? '/',
    env: { PATH: process.env.PATH, ...options.env },
  })
  const pid = Number(out.toString().trim())
  await until(() => readText(`/proc/${pid}/cmdline`)?.split('\0')[0] === command)
  return pid
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Whether a process runs (a zombie is dead: its parent, maybe init, has not reaped it yet). */
function running(pid: number): boolean {
  const state = processState(pid)
  return state !== undefined && state !== 'Z'
}

/** Resolves once `condition` holds: a process's exec or fork has no event to wait on. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await delay(10)
}

/**
 * The check at the end of every test run (test/helpers/run-end.ts): "a test run leaves no process
 * behind". Each way a process can be tied to the run is tried on its own, with an environment
 * that names nothing else.
 */
describe('the check for processes a test run leaves behind', () => {
  if (process.platform !== 'linux') {
    console.log('(not Linux: skipped, the check reads /proc)')
    return
  }

  it('finds a process by the run marker, its directory, command line, environment, open files or parent, and no other', async () => {
    const dir = tempDir('sm-leak-')
    const sibling = `${dir}x` // not under dir, though its name starts with it
    mkdirSync(sibling)
    writeFileSync(join(dir, 'held'), '')
    const marker = `SM_LEAK_CHECK=${randomUUID()}`
    const marked = { SM_LEAK_CHECK: marker.slice(marker.indexOf('=') + 1) }
    // Each one started is killed in the end, whatever failed: some are tied to no run at all.
    const started: number[] = []
    const start = async (...args: Parameters<typeof orphan>) => {
      const pid = await orphan(...args)
      started.push(pid)
      return pid
    }
    let child: ChildProcess | undefined
    try {
      child = spawn('sleep', ['600'], { cwd: '/', env: { PATH: process.env.PATH }, stdio: 'ignore' })
      const expected = new Map<number, RegExp>([
        [await start('exec sleep 600', 'sleep', { env: marked }), /^started by this run/],
        [await start('exec sleep 600', 'sleep', { cwd: dir }), /^it runs in /],
        [await start(`exec sleep 600 3<'${join(dir, 'held')}'`, 'sleep'), /^it holds .*held open$/],
        [await start('exec sleep 600', 'sleep', { env: { SOMEWHERE: `${dir}/data` } }), /^its environment names/],
        [
          await start(`exec '${process.execPath}' -e 'setInterval(() => {}, 1e6)' '${dir}/arg'`, process.execPath),
          /^its command line names/,
        ],
        [child.pid as number, /^a descendant of the test process$/],
      ])
      // A child started with an empty environment by a marked process: tied by its parent.
      const parent = await start('env -i sleep 600; :', 'sh', { env: marked })
      await until(() => findLeaks([], marker).some((leak) => leak.because === `a descendant of PID ${parent}`))
      const unrelated = await start('exec sleep 600', 'sleep', { cwd: sibling })

      const leaks = findLeaks([dir], marker)
      const found = new Map(leaks.map((leak) => [leak.pid, leak.because]))
      for (const [pid, because] of expected) expect(found.get(pid), `PID ${pid}`).to.match(because)
      expect(found.get(parent)).to.match(/^started by this run/)
      const grandchild = leaks.find((leak) => leak.because === `a descendant of PID ${parent}`)
      expect(grandchild?.command).to.equal('sleep 600')
      expect(found.has(unrelated), 'a process in a sibling directory').to.equal(false)
      expect(found.has(process.pid), 'the test process itself').to.equal(false)
    } finally {
      const pids = [...findLeaks([dir], marker).map((leak) => leak.pid), ...started]
      if (child?.pid) pids.push(child.pid)
      await killAndWait(pids)
      rmSync(sibling, { recursive: true, force: true })
    }
    expect(findLeaks([dir], marker)).to.deep.equal([])
    expect(started.filter(running)).to.deep.equal([])
  })

  it('fails a mocha run whose test left a process running, naming it, and kills it and removes its temp dir', async () => {
    const result = await run(
      process.execPath,
      [
        require.resolve('mocha/bin/mocha.js'),
        '--no-config',
        '--require',
        join(__dirname, 'helpers', 'setup.js'),
        join(__dirname, 'programs', 'leaves-a-process.js'),
      ],
      { timeoutMs: 60_000 },
    )
    const [, pid, dir] = /left (\d+) in (\S+)/.exec(result.stdout) ?? []
    expect(pid, result.stdout + result.stderr).to.be.a('string')
    expect(result.code, result.stdout).to.not.equal(0)
    expect(result.stdout).to.include('the test run left things behind')
    expect(result.stdout).to.include(`PID ${pid}: sleep 600`)
    expect(result.stdout).to.include(`(it runs in ${dir})`)
    expect(running(Number(pid))).to.equal(false)
    expect(existsSync(dir as string)).to.equal(false)
  })
})

/**
 * What a describe's before() hook starts (a data dir whose servers a test starts, a manager) is
 * shared by its tests and cleaned up after the describe, not after its first test: the web UI
 * test left its game server running because its data dir was cleaned up after its first test,
 * before the page started the server.
 */
let shared: { manager: ChildProcess; game: number; supervisor: number } | undefined
describe('a game server and a manager started for a whole describe', () => {
  let data: string
  let manager: ChildProcess
  before(async () => {
    data = gameDataDir()
    const added = await cli(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    expect(added.code, added.stderr).to.equal(0)
    const port = await cli(data, ['setting', 'set', 'web.port', '0'])
    expect(port.code, port.stderr).to.equal(0)
    manager = await spawnManager(data)
    await waitForLine(manager, /^ready in/)
  })

  it('start in one test', async () => {
    const started = await cli(data, ['server', 'start', 's1'])
    expect(started.code, started.stderr).to.equal(0)
    const state = runState(data, 's1')
    shared = { manager, game: state?.game?.pid as number, supervisor: state?.supervisor?.pid as number }
  })

  it('still run in the next', () => {
    expect(shared && [shared.game, shared.supervisor].filter(running)).to.have.length(2)
    expect(manager.exitCode).to.equal(null)
  })
})

describe('after that describe', () => {
  it('they are gone', () => {
    if (!shared) throw new Error('run with the describe before it (it starts what this one checks)')
    expect([shared.game, shared.supervisor].filter(running)).to.deep.equal([])
    expect(shared.manager.signalCode).to.equal('SIGKILL')
  })
})
