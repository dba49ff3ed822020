// A test file that test/leaks.test.ts runs in a mocha of its own: its test starts a process the
// way a game server runs (orphaned, in a temp dir of the run, with an environment of its own) and
// never stops it, so that run's end must find it, kill it, and fail.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { tempDir } from '../helpers/temp-dir'

describe('a test that leaves a process behind', () => {
  it('starts a process and forgets it', () => {
    const dir = tempDir('sm-leaky-')
    const pid = execFileSync('sh', ['-c', '(exec sleep 600) </dev/null >/dev/null 2>&1 & echo $!'], {
      cwd: dir,
      env: { PATH: process.env.PATH },
    })
    // The subshell execs sleep a moment after it is forked: wait until it has, or a loaded
    // machine's run end may find it still named `sh` (seen once in CI).
    while (!readFileSync(`/proc/${Number(pid)}/cmdline`, 'utf8').startsWith('sleep')) {}
    console.log(`left ${pid.toString().trim()} in ${dir}`)
  })
})
