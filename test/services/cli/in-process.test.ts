import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { BridgeClient } from '../../../services/bridge/client'
import { cliIn, managerOn } from '../../helpers/cli-in-process'
import { cli, type RunResult } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// The tests that run commands in mocha's process (test/helpers/cli-in-process.ts) are only as
// honest as this: a command run there prints what, and exits with what, the real process does.
describe('test helpers: a CLI command run in-process is the command run as a process', function () {
  this.timeout(120_000)
  let dir: string

  before(async () => {
    dir = tempDir()
    writeFileSync(join(dir, 'value.json'), '{"from":"a file"}\n')
    await managerOn(dir)
  })

  // A process run from a git worktree whose node_modules is a symlink may load @oclif/core twice
  // (by the link's path and by its real one), and then oclif's handle() does not know the
  // ExitError and adds these two lines after the coded error; with node_modules a folder it does not.
  const worktreeNoise = / › {3}Error: EEXIT: \d+\n › {3}Code: EEXIT\n/
  const same = (a: RunResult, b: RunResult) =>
    expect({ code: a.code, stdout: a.stdout, stderr: a.stderr }).to.deep.equal({
      code: b.code,
      stdout: b.stdout,
      stderr: b.stderr.replace(worktreeNoise, ''),
    })

  const cases: [string, string[]][] = [
    ['a setting read', ['setting', 'get', 'web.port', '--json']],
    ['a listing', ['server', 'list']],
    ['help of a topic', ['setting', '--help']],
    ['the version', ['--version']],
    ['a coded refusal (exit 64)', ['setting', 'set', 'nope.x', '1']],
    ['a refusal with exit 1', ['setting', 'get', 'custom.never']],
    ['a parse failure', ['events', '--limit', 'abc']],
    ['an unknown flag', ['events', '--colour']],
    ['a missing argument', ['setting', 'set', 'custom.x']],
    ['a mistyped command', ['setings', 'get', 'x']],
    ['help for no command', ['help', 'nosuch']],
    ['a missing server (its own exit code)', ['server', 'status', 'nosuch']],
    ['a plugin name that cannot be', ['plugin', 'new', 'a'.repeat(300)]],
  ]
  for (const [what, args] of cases)
    it(`${what}: ${args.join(' ').slice(0, 40)}`, async () => {
      same(await cliIn(dir, args), await cli(dir, args))
    })

  it('a command that changes something, and reads standard input', async () => {
    const inProcess = await cliIn(dir, ['setting', 'set', 'custom.a', '-'], {}, '{"n":1}')
    const asProcess = await cli(dir, ['setting', 'set', 'custom.b', '-'], {}, '{"n":1}')
    same(inProcess, { ...asProcess, stdout: asProcess.stdout.replace('custom.b', 'custom.a') })
    expect(inProcess.code).to.equal(0)
    same(await cliIn(dir, ['setting', 'get', 'custom.a']), await cli(dir, ['setting', 'get', 'custom.b']))
    const fromFile = (key: string) => ['setting', 'set', key, '--file', join(dir, 'value.json')]
    const asProcessFile = await cli(dir, fromFile('custom.file2'))
    same(await cliIn(dir, fromFile('custom.file1')), {
      ...asProcessFile,
      stdout: asProcessFile.stdout.replace('custom.file2', 'custom.file1'),
    })
  })

  it('does not leave its environment, exit code or output streams changed', async () => {
    const before = { data: process.env.SM_DATA_DIR, exitCode: process.exitCode, write: process.stdout.write }
    const r = await cliIn(dir, ['setting', 'get', 'custom.never'])
    expect(r.code).to.equal(1)
    expect({ data: process.env.SM_DATA_DIR, exitCode: process.exitCode, write: process.stdout.write }).to.deep.equal(
      before,
    )
  })

  it('runs commands one at a time, each with its own output', async () => {
    const [a, b] = await Promise.all([
      cliIn(dir, ['setting', 'get', 'web.port']),
      cliIn(dir, ['setting', 'get', 'custom.never']),
    ])
    expect([a.code, a.stderr]).to.deep.equal([0, ''])
    expect(b.code).to.equal(1)
    expect(b.stdout).to.equal('')
  })

  // Where no manager runs, a command boots one for itself, in this process as in its own: the
  // same answers on two directories set up alike, and nothing of it left running afterwards.
  it('boots a manager of its own where none runs, as a cold process does, and leaves none running', async () => {
    const [here, there] = [tempDir(), tempDir()]
    const steps: string[][] = [
      ['setting', 'set', 'custom.fresh', '1'],
      ['setting', 'get', 'custom.fresh'],
      ['server', 'add', 'box', '--type', 'custom', '--command', '/bin/cat', '--dir', tempDir()],
      ['server', 'list'],
      ['server', 'status', 'box'],
      ['plugin', 'list'],
      ['events', '--type', 'after_setting_update', '--json'],
    ]
    for (const args of steps) {
      const [inProcess, asProcess] = [await cliIn(here, args), await cli(there, args)]
      // Facts name their time, listings the directory: compare the rest.
      const shape = (text: string) => text.replaceAll(/"time": "[^"]*"/g, '"time": _')
      same(
        { ...inProcess, stdout: shape(inProcess.stdout).replaceAll(here, '_') },
        {
          ...asProcess,
          stdout: shape(asProcess.stdout).replaceAll(there, '_'),
        },
      )
    }
    expect(await BridgeClient.connect(here)).to.equal(undefined)
  })
})
