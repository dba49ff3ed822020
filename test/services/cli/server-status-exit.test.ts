import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { SERVER_STATUS_EXIT } from '../../../services/cli/server-status-exit'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { exited, fakeBedrockDir, gameDataDir, nextLine, statusJson, untilSupervisorEnds } from '../../helpers/game'
import { CLI, cli, cliOk, ROOT, run, spawnCli } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/**
 * `server status <name>` and `--json`: the status each printed, and their exit codes (run in this
 * process: the same code a process exits with, in-process.test.ts; what a shell sees of it is
 * checked below with real processes).
 */
async function looks(data: string, name: string) {
  const text = await cliIn(data, ['server', 'status', name])
  const json = await cliIn(data, ['server', 'status', name, '--json'])
  return {
    text: /^\S+: (\w+)/.exec(text.stdout)?.[1],
    json: JSON.parse(json.stdout).status as string,
    codes: [text.code, json.code],
  }
}

describe('services/cli: server status exits with a code per status', function () {
  this.timeout(60_000)

  it('exits 0 only while running: starting 4, stopping 5, stopped 3, crashed 1, error 2, with or without --json', async () => {
    const data = gameDataDir()
    const gate = join(tempDir(), 'stop-gate')
    // Ready after one console line; a stop ends only once the gate file exists.
    const dir = fakeBedrockDir({ env: { FAKE_READY_AFTER_LINES: '1', FAKE_STOP_GATE: gate } })
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    await cliInOk(data, ['setting', 'set', 'servers.restart.enabled', 'false'])
    expect(await looks(data, 's1')).to.deep.equal({ text: 'stopped', json: 'stopped', codes: [3, 3] })

    const log = RunFiles.of(data, 's1').log
    let launched = nextLine(log, /IPv4 supported/) // printed before its ready line
    const start = spawnCli(data, ['server', 'start', 's1'])
    await launched
    expect(await looks(data, 's1')).to.deep.equal({ text: 'starting', json: 'starting', codes: [4, 4] })
    await cliInOk(data, ['server', 'send', 's1', 'hello']) // its ready line comes
    expect(await exited(start)).to.equal(0)
    expect(await looks(data, 's1')).to.deep.equal({ text: 'running', json: 'running', codes: [0, 0] })
    // What a script writes.
    const up = await run('/bin/sh', ['-c', `"${process.execPath}" "${CLI}" server status s1 >/dev/null && echo up`], {
      env: { SM_DATA_DIR: data },
      cwd: ROOT,
    })
    expect(up.stdout).to.equal('up\n')

    const stopping = nextLine(log, /Server stop requested/)
    const stop = spawnCli(data, ['server', 'stop', 's1'])
    await stopping
    expect(await looks(data, 's1')).to.deep.equal({ text: 'stopping', json: 'stopping', codes: [5, 5] })
    writeFileSync(gate, '')
    expect(await exited(stop)).to.equal(0)
    expect(await looks(data, 's1')).to.deep.equal({ text: 'stopped', json: 'stopped', codes: [3, 3] })

    // A crash with restarts off: left crashed, its supervisor gone.
    launched = nextLine(log, /IPv4 supported/)
    const again = spawnCli(data, ['server', 'start', 's1'])
    await launched
    await cliInOk(data, ['server', 'send', 's1', 'hello'])
    expect(await exited(again)).to.equal(0)
    const ended = untilSupervisorEnds(data, 's1')
    await cliInOk(data, ['server', 'send', 's1', 'crash'])
    await ended
    expect(await looks(data, 's1')).to.deep.equal({ text: 'crashed', json: 'crashed', codes: [1, 1] })
    // A stop of the crashed server says it is crashed, not to start it (issue 34 item 7).
    const noStop = await cliIn(data, ['server', 'stop', 's1'])
    expect(noStop.code).to.equal(75)
    expect(noStop.stderr).to.include(
      "The server 's1' is crashed: it is not running, so there is nothing to stop ('server status s1' says how it ended).",
    )
    const down = await run(
      '/bin/sh',
      ['-c', `"${process.execPath}" "${CLI}" server status s1 >/dev/null || echo down`],
      {
        env: { SM_DATA_DIR: data },
        cwd: ROOT,
      },
    )
    expect(down.stdout).to.equal('down\n')

    // One that could not be started at all.
    const missing = join(tempDir(), 'gone')
    mkdirSync(missing)
    await cliInOk(data, ['server', 'add', 'g1', '--dir', missing, '--command', './no-such-binary'])
    expect((await cli(data, ['server', 'start', 'g1'])).code).to.equal(70)
    expect(await looks(data, 'g1')).to.deep.equal({ text: 'error', json: 'error', codes: [2, 2] })
    expect((await statusJson(data, 'g1')).reason).to.match(/no-such-binary/)

    // A status that cannot be read exits with its error's code, never a status's.
    const nope = await cli(data, ['server', 'status', 'nope'])
    expect(nope.code).to.equal(66)
    expect(nope.stderr).to.include('[SM_ERR_SERVER_NOT_FOUND]')
  })

  it('documents its codes in its help and in the README, as the command uses them', async () => {
    const help = await cliOk(tempDir(), ['server', 'status', '--help'])
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    for (const [status, { code }] of Object.entries(SERVER_STATUS_EXIT)) {
      expect(help.replace(/\s+/g, ' ')).to.include(`${code} ${status}`)
      expect(readme).to.match(new RegExp(`^\\| \`${status}\` \\| ${code} \\|`, 'm'))
    }
  })
})
