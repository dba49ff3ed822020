import { appendFileSync, existsSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { fill, fullDiskSuite, managerPid, show } from '../../helpers/full-disk'
import {
  alive,
  fakeBedrockDir,
  runState,
  statusText,
  untilGone,
  untilStatus,
  untilSupervisorEnds,
} from '../../helpers/game'
import { cli, cliStart } from '../../helpers/run'

// Commands run in this process (cliIn), on the data directory of the full disk as a process's
// would: with no manager each boots one here, on that disk (reads and the crash they find, the
// one-shot path included). Cold processes stay where a real process's exit is what is asked: the
// stop answered as done by the manager (exit 0) and the kill answered as done by a one-shot
// process (exit 0); and the first manager, detached as `start --detached` leaves it, with its
// output file on the full disk while a game dies of it (the supervisors and games are processes
// in any case). The manager a stop goes through is one in this process (managerOn).

describe('services/servers: a supervisor and the reads on a full disk (issue 18 follow-up)', function () {
  this.timeout(240_000)
  const disk = fullDiskSuite('sm-supfull-')
  const ok = (args: string[]) => cliInOk(disk.data, args)

  it('a sent command is a success with a warning, the supervisor outlives its unwritable files and reports the crash truly, and reads answer', async () => {
    const filler = join(disk.mount, 'filler')
    await ok(['server', 'add', 'big', '--dir', fakeBedrockDir()])
    await ok(['setting', 'set', 'servers.restart.enabled', 'false'])
    await ok(['server', 'start', 'big'])
    const started = await cliStart(disk.data, ['--detached'])
    expect(started.code, show(started)).to.equal(0)
    const supervisor = runState(disk.data, 'big')?.supervisor?.pid
    expect(alive(supervisor)).to.equal(true)
    fill(filler)

    // The fake game writes its replies with writeSync to console.log, which the full disk ends with
    // ENOSPC: it dies after a few. Each command was sent: none is answered as a failure. (The
    // background manager answers them: each is its client, run in this process.)
    let sends = 0
    for (; sends < 200; sends++) {
      const r = await cliIn(disk.data, ['server', 'send', 'big', 'list'])
      if (r.code !== 0) {
        expect(r.stderr, show(r)).to.match(/SM_ERR_SERVER_NOT_RUNNING/)
        break
      }
      expect(r.stderr, show(r)).to.match(
        /^Warning: A console command to 'big' is done, but not recorded in the event log; do not repeat it\. The disk .* is full/m,
      )
    }
    expect(sends, 'no command was sent').to.be.greaterThan(0)
    expect(sends, 'the game never died of its full console log').to.be.lessThan(200)

    // Its supervisor did not die of the state it could not write: it says what happened.
    expect(alive(supervisor), 'the supervisor died').to.equal(true)
    const status = await statusText(disk.data, 'big')
    expect(status).to.match(/crashed/)
    expect(status).to.match(/exit code 1/)
    expect(await ok(['server', 'list'])).to.match(/big +bedrock +crashed/)

    // Space again: it writes what it kept and ends, as a supervisor of a game that is gone does.
    unlinkSync(filler)
    await untilSupervisorEnds(disk.data, 'big')
    expect(runState(disk.data, 'big')).to.include({ status: 'crashed' })
    expect(runState(disk.data, 'big')?.supervisor).to.equal(undefined)
    const journal = new RunFiles(join(disk.data, 'servers', 'big')).readJournal()
    expect(journal.map((entry) => entry.status)).to.include('crashed')
    expect(await ok(['events', '--limit', '20'])).to.match(/server_crash/)
  })

  it('reads answer what they see when the crash they find cannot be recorded, through the manager and in one process', async () => {
    const filler = join(disk.mount, 'filler')
    await ok(['server', 'start', 'big'])
    const state = runState(disk.data, 'big')
    expect(state?.status).to.equal('running')
    const pid = managerPid(disk.data)
    expect(alive(pid), 'the manager is gone').to.equal(true)
    fill(filler)
    // Supervisor and game gone at once: the next look finds a crash it cannot record.
    process.kill(state?.supervisor?.pid as number, 'SIGKILL')
    process.kill(-(state?.game?.pid as number), 'SIGKILL')
    await untilGone(state?.game?.pid as number)
    await untilGone(state?.supervisor?.pid as number)
    for (let round = 0; round < 2; round++) {
      expect(await statusText(disk.data, 'big')).to.match(/crashed/)
      expect(await ok(['server', 'list'])).to.match(/big +bedrock +crashed/)
      if (round === 0) {
        // The same, without a manager (the one-shot path, booted in this process on the full disk).
        unlinkSync(filler)
        await ok(['web', 'stop'])
        await untilGone(pid as number)
        fill(filler)
      }
    }
    unlinkSync(filler)
    // Space again: the next look records it.
    expect(await statusText(disk.data, 'big')).to.match(/crashed/)
    expect(runState(disk.data, 'big')).to.include({ status: 'crashed' })
    expect(await ok(['events', '--limit', '5'])).to.match(/server_crash/)
  })

  it('a stop whose status journal cannot be recorded is answered as done, and the next look records it', async () => {
    const filler = join(disk.mount, 'filler')
    await ok(['server', 'add', 'stopper', '--dir', fakeBedrockDir()])
    await ok(['server', 'start', 'stopper'])
    // The manager the stop goes through, in this process (stopped at the test's end).
    await managerOn(disk.data)
    const game = runState(disk.data, 'stopper')?.game?.pid as number
    const supervisor = runState(disk.data, 'stopper')?.supervisor?.pid as number
    // Room for the stop's own facts in the database, none for the journal's lock file.
    const reserve = join(disk.mount, 'reserve')
    writeFileSync(reserve, Buffer.alloc(48 * 1024))
    fill(filler)
    unlinkSync(reserve)
    try {
      // A client process: its exit code.
      const stop = await cli(disk.data, ['server', 'stop', 'stopper'])
      // Done work is never answered as failed (the old answer was SM_ERR_DB_FULL, exit 74).
      expect(stop.code, show(stop)).to.equal(0)
      expect(stop.stdout).to.match(/Server 'stopper' stopped/)
      await untilGone(game)
      expect(await ok(['server', 'list'])).to.match(/stopper +bedrock +stopped/)
    } finally {
      unlinkSync(filler)
    }
    // Its supervisor retries the journal it could not write, and ends once it is on disk: the
    // look before that answers from its memory, the one after records the journal.
    await untilGone(supervisor)
    expect(await statusText(disk.data, 'stopper')).to.match(/stopped/)
    const recorded = await ok(['events', '--limit', '10'])
    expect(recorded, recorded).to.match(/after_server_status_change .*"serverName":"stopper","status":"stopped"/)
  })

  it('a crash restart goes ahead when the console log cannot be rotated, and leaves no torn rotated log', async () => {
    await ok(['setting', 'set', 'servers.log_max_bytes', '65536'])
    await ok(['setting', 'set', 'servers.restart.delay_ms', '0'])
    await ok(['server', 'add', 'rotor', '--dir', fakeBedrockDir()])
    await ok(['server', 'config', 'rotor', 'restart.enabled', 'true'])
    await ok(['server', 'start', 'rotor'])
    const game = runState(disk.data, 'rotor')?.game?.pid as number
    // A log due for rotation, bigger than the space left: its copy cannot be made.
    const log = RunFiles.of(disk.data, 'rotor').log
    appendFileSync(log, `${'x'.repeat(99)}\n`.repeat(2000))
    const filler = join(disk.mount, 'filler')
    const reserve = join(disk.mount, 'reserve')
    writeFileSync(reserve, Buffer.alloc(64 * 1024))
    fill(filler)
    unlinkSync(reserve)
    try {
      process.kill(game, 'SIGKILL')
      const next = await untilStatus(disk.data, 'rotor', (e) =>
        /restart 1 of|could not be prepared/.test((e as { reason?: string }).reason ?? ''),
      )
      // The old answer: 'its console could not be prepared: ENOSPC', and no restart.
      expect((next as { reason?: string }).reason).to.match(/^restart 1 of 3 after a crash/)
      expect(existsSync(`${log}.1`), 'a torn copy of the log was left').to.equal(false)
    } finally {
      unlinkSync(filler)
    }
    expect(await statusText(disk.data, 'rotor')).to.match(/running|starting/)
    await ok(['server', 'stop', 'rotor'])
  })

  it('a kill of a game without its supervisor is answered as done when its state cannot be written', async () => {
    await ok(['server', 'add', 'killme', '--dir', fakeBedrockDir()])
    await ok(['server', 'start', 'killme'])
    const state = runState(disk.data, 'killme')
    const game = state?.game?.pid as number
    process.kill(state?.supervisor?.pid as number, 'SIGKILL')
    await untilGone(state?.supervisor?.pid as number)
    const filler = join(disk.mount, 'filler')
    fill(filler)
    try {
      // A one-shot process: its exit code.
      const kill = await cli(disk.data, ['server', 'kill', 'killme'])
      // The old answer: SM_ERR_DISK_FULL, exit 74, for a game that was killed.
      expect(kill.code, show(kill)).to.equal(0)
      await untilGone(game)
    } finally {
      unlinkSync(filler)
    }
    expect(await statusText(disk.data, 'killme')).not.to.match(/running/)
  })
})
