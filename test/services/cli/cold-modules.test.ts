import { expect } from 'chai'
import { loadedModules } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// The client path (a manager runs) is checked in test/services/bridge/daemon.test.ts.
describe('services/cli: a command with no manager running loads what it uses', () => {
  it('boots the manager in its process without the web stack (Koa, its middleware, the templates, the routes)', async () => {
    const { code, stderr, stdout, loaded } = await loadedModules(tempDir(), ['server', 'list'])
    expect(code, stderr).to.equal(0)
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
