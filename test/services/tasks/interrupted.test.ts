import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliInOk, managerOn } from '../../helpers/cli-in-process'
import { exited, fakeBedrockDir, gameDataDir, nextLine } from '../../helpers/game'
import { spawnCli, spawnManager, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// Commands run in this process (cliIn: with no manager each boots one here, a process of another
// PID than the task's, as a one-shot process is). Processes stay where they are the point: the
// manager killed -9 during a backup, and the CLI killed -9 during its own backup (and the backup
// client of that manager, which waits on it while this process lists the tasks). The managers
// that start after a kill, and record what it interrupted, run in this process (managerOn).

async function startManager(data: string): Promise<ChildProcessWithoutNullStreams> {
  const manager = await spawnManager(data)
  await waitForLine(manager, /^ready in/)
  return manager
}

interface Listed {
  id: string
  name: string
  state: string
  error?: { code: string; message: string }
}

async function tasks(data: string): Promise<Listed[]> {
  return JSON.parse(await cliInOk(data, ['tasks', '--json'])) as Listed[]
}

async function finishedFacts(data: string): Promise<{ payload: Listed }[]> {
  return JSON.parse(await cliInOk(data, ['events', '--type', 'tasks:finished', '--json'])) as { payload: Listed }[]
}

/**
 * A server whose save query answers "not completed" until the gate file exists: a hot backup
 * waits in it, running, for as long as the test likes.
 */
async function heldServer(data: string) {
  const gate = join(tempDir(), 'query-gate')
  await cliInOk(data, ['setting', 'set', 'web.enabled', 'false'])
  await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_QUERY_GATE: gate } })])
  await cliInOk(data, ['server', 'start', 's1'])
  return { querying: () => nextLine(RunFiles.of(data, 's1').log, /A previous save has not been completed/) }
}

describe('services/tasks: a task whose process dies is recorded as interrupted (issue 18 item 1)', function () {
  this.timeout(60_000)

  it('a manager killed -9 during a backup: the next manager records the backup as failed, SM_ERR_TASK_INTERRUPTED', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    const first = await startManager(data)
    const querying = s.querying()
    const backup = spawnCli(data, ['server', 'backup', 's1'])
    await querying
    const running = (await tasks(data)).find((t) => t.name.includes('backup'))
    expect(running?.state).to.equal('running')
    first.kill('SIGKILL')
    await exited(first)
    await exited(backup)

    // The next manager, in this process.
    const second = await managerOn(data)
    // Written by the new manager's start, before anyone listed tasks.
    const ended = (await finishedFacts(data)).find((e) => e.payload.id === running?.id)
    expect(ended?.payload.state).to.equal('failed')
    expect(ended?.payload.error?.code).to.equal('SM_ERR_TASK_INTERRUPTED')
    expect(ended?.payload.error?.message).to.include(`PID ${first.pid}`)
    const listed = (await tasks(data)).find((t) => t.id === running?.id)
    expect(listed?.state).to.equal('failed')
    expect(listed?.error?.code).to.equal('SM_ERR_TASK_INTERRUPTED')
    expect((await second.stop()).filter((r) => !r.ok)).to.deep.equal([])
    // Recorded once: the next start finds nothing more to end.
    const again = await managerOn(data)
    expect((await again.stop()).filter((r) => !r.ok)).to.deep.equal([])
    expect((await finishedFacts(data)).filter((e) => e.payload.id === running?.id)).to.have.length(1)
  })

  it('a CLI killed -9 during its own backup: listed as running while it runs, then as interrupted by a one-shot tasks', async () => {
    const data = gameDataDir()
    const s = await heldServer(data)
    const querying = s.querying()
    const backup = spawnCli(data, ['server', 'backup', 's1'])
    await querying
    // Another process lists it: running, since its process lives.
    const running = (await tasks(data)).find((t) => t.name.includes('backup'))
    expect(running?.state).to.equal('running')
    expect(running?.error).to.equal(undefined)
    backup.kill('SIGKILL')
    await exited(backup)

    const listed = (await tasks(data)).find((t) => t.id === running?.id)
    expect(listed?.state).to.equal('failed')
    expect(listed?.error?.code).to.equal('SM_ERR_TASK_INTERRUPTED')
    expect(listed?.error?.message).to.include(`PID ${backup.pid}`)
    const ended = (await finishedFacts(data)).filter((e) => e.payload.id === running?.id)
    expect(ended).to.have.length(1)
    expect(ended[0]?.payload.error?.code).to.equal('SM_ERR_TASK_INTERRUPTED')
  })
})
