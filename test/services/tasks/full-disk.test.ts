import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { FileSink } from '../../../services/log/file-sink'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fill, fullDiskSuite, managerPid, show } from '../../helpers/full-disk'
import { alive, fakeBedrockDir } from '../../helpers/game'
import { CLI, cli, cliStart, run } from '../../helpers/run'

// Commands run in this process (cliIn), on the data directory of the full disk as a process's
// would: with no manager each boots one here, on that disk. Cold processes stay where the process
// is the point: the manager, detached (its output file on the full disk too, which must not end
// it), one backup as a client process of it and one with no manager (exit 74, issue 18), and the
// command whose own standard output is a file on the full disk (SM_ERR_OUTPUT_LOST).

describe('services/tasks: a full disk (issue 18 items 18, 19, 25)', function () {
  this.timeout(240_000)
  const disk = fullDiskSuite('sm-full-')
  const ok = (args: string[]) => cliInOk(disk.data, args)

  it('ends every task with a coded disk-full error, keeps the background manager alive and answering, serves reads, and works again once space is freed', async () => {
    const filler = join(disk.mount, 'filler')
    await ok(['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await ok(['setting', 'set', 'web.port', '0'])
    await ok(['server', 'start', 's1'])
    const started = await cliStart(disk.data, ['--detached'])
    expect(started.code, show(started)).to.equal(0)
    const pid = managerPid(disk.data)
    // Freed later: room for the task's facts but not for the archive.
    const reserve = join(disk.mount, 'reserve')
    writeFileSync(reserve, Buffer.alloc(48 * 1024))
    fill(filler)

    // More backups than tasks.max_concurrent (4): each ends, failed with the disk-full code (the
    // background manager's answer to a client, run in this process).
    for (let i = 0; i < 12; i++) {
      const r = await cliIn(disk.data, ['server', 'backup', 's1'])
      expect(r.code, show(r)).to.equal(74)
      expect(r.stderr).to.match(/^Error \[SM_ERR_(DB|DISK)_FULL\]: .*[Ff]ree space/m)
    }
    // The same manager (its output file on the full disk too) is alive and answers.
    expect(alive(pid), 'the background manager ended').to.equal(true)
    expect(await ok(['status'])).to.include(`PID      ${pid}`)
    // Reads need no space (the status journal is left unrecorded, with a warning).
    expect(await ok(['server', 'list'])).to.match(/s1 +bedrock +running/)
    expect(await ok(['server', 'status', 's1'])).to.match(/running/)
    expect((await ok(['setting', 'get', 'web.port'])).trim()).to.equal('0')
    await ok(['events', '--limit', '3'])
    await ok(['plugin', 'list'])
    const tasks = await ok(['tasks'])
    expect(tasks).to.match(/failed +.*backup s1 +SM_ERR_(DB|DISK)_FULL/)
    expect(tasks).not.to.match(/running|queued/)
    // The same manager (its output file on the full disk too) is alive and answers.
    expect(await ok(['status'])).to.include(`PID      ${pid}`)
    expect(alive(pid)).to.equal(true)

    // A little space: the backup gets further and stops at the archive, still with the disk-full
    // code (a client process: its exit code).
    unlinkSync(reserve)
    const partial = await cli(disk.data, ['server', 'backup', 's1'])
    expect(partial.code, show(partial)).to.equal(74)
    expect(partial.stderr).to.match(/^Error \[SM_ERR_(DB|DISK)_FULL\]: .*[Ff]ree space/m)

    // Space again: the runner works without a restart.
    unlinkSync(filler)
    expect(await ok(['server', 'backup', 's1'])).to.match(/world_.*\.mcworld/)
    expect(await ok(['tasks', '--limit', '1'])).to.match(/succeeded +.*backup s1/)
    expect(managerPid(disk.data)).to.equal(pid)
    await ok(['web', 'stop'])
    // Every failure was a coded one: no stray rejection, nothing called a bug.
    const output = readFileSync(join(disk.data, 'logs', 'manager.out'), 'utf8')
    expect(output).not.to.match(/unhandled|This is a bug/)
    // The log file's trouble was said once.
    expect(output.match(/the log file cannot be written .*its lines are dropped until it can/g)).to.have.length(1)

    // No manager, and the database's shared-memory file gone with it: reading still needs no space
    // (each read boots a manager in this process on the full disk, as a process would in its own).
    fill(filler)
    expect(await ok(['server', 'list'])).to.match(/s1 +bedrock +running/)
    expect((await ok(['setting', 'get', 'web.port'])).trim()).to.equal('0')
    expect(await ok(['events', '--limit', '3'])).to.include('tasks:finished')
    await ok(['plugin', 'list'])
    await ok(['tasks'])
    await ok(['status'])
    // A one-shot process's backup: its exit code.
    const backup = await cli(disk.data, ['server', 'backup', 's1'])
    expect(backup.code, show(backup)).to.equal(74)
    unlinkSync(filler)
    await ok(['db', 'check'])
    await ok(['server', 'stop', 's1'])
  })

  it('a command whose output goes to the full disk fails with SM_ERR_OUTPUT_LOST instead of crashing or exiting 0', async () => {
    const filler = join(disk.mount, 'filler')
    const out = join(disk.mount, 'out.txt')
    fill(filler)
    try {
      const r = await run('/bin/sh', ['-c', `exec "$0" "$1" setting list > '${out}'`, process.execPath, CLI], {
        env: { SM_DATA_DIR: disk.data },
      })
      expect(r.code, r.stderr).to.equal(74)
      expect(r.stderr).to.match(/^Error \[SM_ERR_OUTPUT_LOST\]: .*ENOSPC/m)
      expect(r.stderr).not.to.match(/This is a bug/)
    } finally {
      unlinkSync(filler)
    }
  })

  it('the log file drops lines on a full disk, says so once, and resumes with a count once it can write', () => {
    const filler = join(disk.mount, 'filler')
    const said: string[] = []
    const sink = new FileSink({
      path: join(disk.mount, 'logs', 'x.log'),
      onDropping: (reason) => said.push(`dropping: ${reason}`),
      onResumed: (dropped) => said.push(`resumed after ${dropped}`),
    })
    sink.write('first\n')
    fill(filler)
    for (let i = 0; i < 5; i++) sink.write(`${'x'.repeat(5000)}\n`)
    expect(sink.broken).to.match(/ENOSPC/)
    unlinkSync(filler)
    sink.write('after\n')
    sink.close()
    expect(said).to.deep.equal(['dropping: ENOSPC: no space left on device, write', 'resumed after 5'])
    expect(readFileSync(join(disk.mount, 'logs', 'x.log'), 'utf8')).to.match(/^first\n.*after\n$/s)
  })
})
