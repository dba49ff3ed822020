import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { CLI, run } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/** The modules a CLI process had loaded when it exited (its require cache), and what it printed. */
async function loadedBy(dataDir: string, args: readonly string[]): Promise<{ stdout: string; loaded: string[] }> {
  const trace = join(dataDir, 'modules.txt')
  const tracer = join(tempDir(), 'tracer.js')
  writeFileSync(
    tracer,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.TRACE, Object.keys(require.cache).join('\\n')))\n",
  )
  const result = await run(process.execPath, ['--require', tracer, CLI, ...args], {
    env: { SM_DATA_DIR: dataDir, TRACE: trace },
  })
  expect(result.code, result.stderr).to.equal(0)
  return { stdout: result.stdout, loaded: readFileSync(trace, 'utf8').split('\n') }
}

// The client path (a manager runs) is checked in test/services/bridge/daemon.test.ts.
describe('services/cli: a command with no manager running loads what it uses', () => {
  it('boots the manager in its process without the web stack (Koa, its middleware, the templates, the routes)', async () => {
    const { stdout, loaded } = await loadedBy(tempDir(), ['server', 'list'])
    expect(stdout).to.match(/^No servers yet/)
    // It did boot a manager here: the event log is open in this process.
    expect(loaded.some((path) => path.includes('/node_modules/sqlite3/'))).to.equal(true)
    expect(loaded.some((path) => path.includes('/services/events/'))).to.equal(true)
    for (const heavy of [
      '/node_modules/koa/',
      '/node_modules/koa-views/',
      '/node_modules/koa-static/',
      '/node_modules/busboy/',
      '/node_modules/co-body/',
      '/node_modules/js-beautify/',
      '/services/web/app.js',
      '/services/web/routes/',
    ])
      expect(
        loaded.filter((path) => path.includes(heavy)),
        heavy,
      ).to.deep.equal([])
  })
})
