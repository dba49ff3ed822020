import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { isDying, isSameProcess, processIdentity } from '../../../lib/process-identity'
import { AgentClient, SupervisorClient } from '../../../services/servers/supervisor/client'
import { AgentFiles, RunFiles } from '../../../services/servers/supervisor/run-files'
import { afterItsUser } from '../../helpers/run-end'
import { tempDir } from '../../helpers/temp-dir'

const PYTHON = '/usr/bin/python3'

/**
 * A process caught as a killed supervisor is for a moment: its main thread has ended (a zombie)
 * while another thread still holds the UNIX socket it listens on, so a connection is accepted
 * and never answered, until that thread ends too (after `seconds`). Python's main thread leaves
 * with the bare exit system call; Node cannot.
 */
const DYING = [
  'import ctypes, socket, sys, threading, time',
  'server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
  'server.bind(sys.argv[1])',
  'server.listen(16)',
  'threading.Thread(target=lambda: time.sleep(float(sys.argv[2]))).start()',
  "print('listening', flush=True)",
  // The bare exit system call (not exit_group): its number on x86-64, else on arm64.
  "import platform; ctypes.CDLL(None).syscall(60 if platform.machine() == 'x86_64' else 93, 0)",
].join('\n')

async function dyingOwner(socket: string, seconds = 3600): Promise<ChildProcess> {
  const child = spawn(PYTHON, ['-c', DYING, socket, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] })
  afterItsUser(() => {
    child.kill('SIGKILL')
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve())
    child.once('exit', () => reject(new Error('the dying owner did not start')))
  })
  const pid = child.pid as number
  // Listening, with its main thread gone: what a killed supervisor looks like while it is torn down.
  while (!isDying(pid)) await new Promise((resolve) => setImmediate(resolve))
  return child
}

describe('services/servers: a supervisor or agent killed a moment ago is not talked to (issue 32, item 7)', () => {
  before(function () {
    if (!existsSync(PYTHON)) this.skip()
  })

  it('tells a process being torn down (its sockets still accept) from a live one and a dead one', async () => {
    const dir = tempDir()
    const child = await dyingOwner(join(dir, 'x.sock'))
    const pid = child.pid as number
    expect(isSameProcess(pid, processIdentity(pid))).to.equal(false)
    expect(isDying(pid)).to.equal(true)
    expect(isDying(process.pid)).to.equal(false)
    const ended = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await ended
    expect(isDying(pid)).to.equal(false)
  })

  it("connects to a server's supervisor only once the one recorded is gone for good: never to its dying socket", async () => {
    const files = new RunFiles(join(tempDir(), 's1'))
    mkdirSync(files.dir, { recursive: true })
    const child = await dyingOwner(files.socket, 1.5)
    const pid = child.pid as number
    writeFileSync(files.state, JSON.stringify({ status: 'running', supervisor: { pid, identity: undefined } }))
    // Once its last thread has ended, its socket is gone with it: nobody serves, so the caller
    // adopts the game (it used to get a connection that was dropped unanswered, and retried into
    // the same socket until its attempts ran out: 'closed the connection before answering').
    expect(await SupervisorClient.connect(files, 's1')).to.equal(undefined)
  })

  it('connects to the host agent only once the one recorded is gone for good', async () => {
    const agent = new AgentFiles(tempDir())
    agent.ensureDir()
    const child = await dyingOwner(agent.socket, 1.5)
    agent.writeRecord({
      pid: child.pid as number,
      identity: undefined,
      startedAt: new Date().toISOString(),
      version: 'test',
    })
    expect(await AgentClient.connect(agent)).to.equal(undefined)
  })
})
