import { join } from 'node:path'
import { expect } from 'chai'
import { ROOT, run } from '../helpers/run'

const BENCH = join(ROOT, 'dist', 'bench', 'run.js')

// `npm run bench` is too long and too noisy for CI; its quick mode runs every benchmark end to
// end at tiny sizes, so a benchmark that no longer runs fails here and not months later.
describe('npm run bench, quick mode', function () {
  this.timeout(240_000)

  it('runs every benchmark end to end and exits 0 (the shipped default plugins on, as for a user)', async () => {
    // The benchmarks must not depend on what ships: run them with the default plugins on,
    // which the test setup turns off for everything else.
    const result = await run(process.execPath, [BENCH, '--quick'], {
      env: { SM_DEFAULT_PLUGINS: undefined },
      timeoutMs: 230_000,
    })
    const output = `${result.stdout}\n${result.stderr}`
    expect(result.code, output).to.equal(0)
    expect(result.stderr, output).not.to.match(/benchmark '.*' failed/)
    for (const heading of [
      'emit to 50 listeners',
      'append in batches of',
      'before/after pair to 3 plugins',
      'a manager process (server-manager start) with 3 enabled plugins and with none',
      'cold process, no manager running: a read',
      'answers while a plugin hook loops forever in its thread',
      'load of 3 generated TypeScript plugins',
      'cold process: a command answered by the running manager',
      'one settings:get request',
      'setting set custom.small',
      'replay of 100 setting changes',
      'world backup of a generated',
      'server list --json with 2 registered servers',
      'console round trip',
      'memory sampling adds to the host agent, at its busiest',
      'supervision memory of running servers',
      'HTTP at 50 connections',
      'GET /api/servers with 3 registered servers',
      'cold `server-manager --help`',
      'cold `setting set`, no manager',
      'the dashboard page with 2 registered servers (2 rows drawn)',
    ])
      expect(result.stdout, output).to.include(heading)
    expect(result.stdout).to.include('every benchmark ran (quick: tiny sizes, goals not checked)')
  })

  it('refuses an unknown benchmark name (exit 2) instead of running nothing and passing', async () => {
    const result = await run(process.execPath, [BENCH, '--quick', 'no-such-bench'])
    expect(result.code).to.equal(2)
    expect(result.stderr).to.include('unknown benchmark no-such-bench: one of dispatch, append')
  })
})
