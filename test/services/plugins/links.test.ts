import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { plugin, pluginRecord, pluginRecords, writePlugins } from '../../helpers/plugins'
import { cli, spawnManager, stop } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'
import { adminSession, webUrl } from '../../helpers/web-process'

/*
 * Two cold processes stay (cli): a one-shot command with the refused plugins in its folder, and
 * one refused enable, each a process that must end with its code (a discovery that hung on a
 * link, or kept a handle open, would keep it from exiting). The other commands run in this
 * process (cliIn: the same code): the other refusals, the set-ups, and the clients of a running
 * manager. The managers stay processes.
 */

/** A package plugin serving its `static` folder at /<name>/static. */
const STATIC_PLUGIN = (className: string, name: string) =>
  plugin(
    className,
    `override getStaticMounts(): [string, string, string][] {
    return [['/${name}/static', require('node:path').join(__dirname, 'static'), '${name}_static']]
  }`,
  )

describe('services/plugins: symbolic links in plugin folders (CLI commands, two of them processes, and a manager)', function () {
  this.timeout(120_000)

  it('refuses a plugin with a link out of its folder, to nothing or in a loop, naming it; every command still runs', async () => {
    const dir = tempDir()
    const outside = tempDir()
    symlinkSync(join(outside, 'gone'), join(outside, 'dangling')) // a folder outside holding a dangling link
    const plugins = join(dir, 'plugins')
    writePlugins(dir, {
      'outward/index.ts': plugin('Outward'),
      'looping/index.ts': plugin('Looping'),
      'nowhere/index.ts': plugin('Nowhere'),
      'inward/index.ts': plugin('Inward'),
      'inward/files/real.txt': 'real\n',
    })
    symlinkSync(outside, join(plugins, 'outward', 'etcdir'))
    symlinkSync('self', join(plugins, 'looping', 'self'))
    symlinkSync('/nonexistent/file', join(plugins, 'nowhere', 'file'))
    symlinkSync('real.txt', join(plugins, 'inward', 'files', 'alias.txt'))
    symlinkSync('..', join(plugins, 'inward', 'files', 'up'))

    const set = await cli(dir, ['setting', 'set', 'custom.x', '1'])
    expect(set.code, set.stderr).to.equal(0)
    const byName = new Map((await pluginRecords(dir)).map((r) => [r.name, r]))
    const expected: Record<string, string> = {
      outward: "its file 'etcdir' links to a place outside the plugin's folder",
      looping: "its file 'self' is a symbolic link that loops",
      nowhere: "its file 'file' is a symbolic link to nothing",
    }
    for (const [name, text] of Object.entries(expected)) {
      const record = byName.get(name)
      expect(record?.state, name).to.equal('invalid')
      expect(record?.error?.code, name).to.equal('SM_ERR_PLUGIN_BAD_FILE')
      expect(record?.error?.message, name).to.contain(`The plugin '${name}' cannot be loaded: ${text}`)
    }
    for (const [i, name] of Object.keys(expected).entries()) {
      const enable = await (i === 0 ? cli : cliIn)(dir, ['plugin', 'enable', name])
      expect(enable.code, enable.stderr).to.equal(65)
      expect(enable.stderr).to.contain('SM_ERR_PLUGIN_BAD_FILE')
      expect(enable.stderr).not.to.contain(dir)
    }
    // A link that stays inside the plugin is fine.
    const inward = await cliIn(dir, ['plugin', 'enable', 'inward'])
    expect(inward.code, inward.stderr).to.equal(0)
    expect((await pluginRecord(dir, 'inward')).state).to.equal('loaded')
    expect((await cliIn(dir, ['plugin', 'reload'])).code).to.equal(0)
  })

  it('serves no file whose real path leaves its mount (links, a hard link to the database), and answers 200 to a reload with a bad link', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'shelf/index.ts': STATIC_PLUGIN('Shelf', 'shelf'),
      'shelf/static/hello.txt': 'hello\n',
    })
    expect((await cliIn(dir, ['setting', 'set', 'web.port', '0'])).code).to.equal(0)
    expect((await cliIn(dir, ['plugin', 'enable', 'shelf'])).code).to.equal(0)
    const manager = await spawnManager(dir)
    try {
      const url = await webUrl(manager)
      const session = await adminSession(dir, url)
      expect((await http(`${url}/shelf/static/hello.txt`)).text).to.equal('hello\n')
      // Many clients at once get the same file: one served copy is not "a file the manager has open".
      writeFileSync(join(dir, 'plugins', 'shelf', 'static', 'big.bin'), Buffer.alloc(4 << 20, 1))
      const parallel = await Promise.all(
        Array.from({ length: 12 }, () =>
          fetch(`${url}/shelf/static/big.bin`).then(async (r) => [r.status, (await r.arrayBuffer()).byteLength]),
        ),
      )
      expect(parallel).to.deep.equal(Array.from({ length: 12 }, () => [200, 4 << 20]))

      // Links added while the manager runs (the plugin is loaded, its mount live).
      const statics = join(dir, 'plugins', 'shelf', 'static')
      const database = join(dir, 'server-manager.db')
      symlinkSync('/etc/passwd', join(statics, 'passwd-link'))
      symlinkSync(database, join(statics, 'db-link'))
      symlinkSync(`${database}-wal`, join(statics, 'wal-link'))
      symlinkSync('/etc', join(statics, 'etcdir'))
      symlinkSync('hello.txt', join(statics, 'alias.txt'))
      mkdirSync(join(statics, 'sub'))
      // A hard link has no link to resolve: its real path is inside the mount, yet it is the database.
      linkSync(database, join(statics, 'sub', 'copy.bin'))
      // Nor is a hard link to a file the manager does not hold open (a key, a backup): a file with another name is not served.
      writeFileSync(join(dir, 'outside-secret.txt'), 'not for the web\n')
      linkSync(join(dir, 'outside-secret.txt'), join(statics, 'hard.txt'))
      for (const path of [
        'hard.txt',
        'passwd-link',
        'db-link',
        'wal-link',
        'etcdir/passwd',
        'sub/copy.bin',
        '..%2f..%2fserver-manager.db',
        '%2e%2e/%2e%2e/server-manager.db',
        'sub',
      ]) {
        const reply = await http(`${url}/shelf/static/${path}`)
        expect(reply.status, path).to.equal(404)
        expect(reply.json, path).to.include({ status: 'error', code: 'SM_ERR_WEB_NOT_FOUND' })
      }
      for (const path of ['/static/../server-manager.db', '/docs/%2e%2e/%2e%2e/package.json']) {
        expect((await http(`${url}${path}`)).status, path).to.equal(404)
      }
      expect((await http(`${url}/shelf/static/alias.txt`)).text).to.equal('hello\n')
      expect((await http(`${url}/static/vendor/pico/pico.min.css`)).status).to.equal(200)

      // A reload finds the links out of the folder: the plugin is refused with a code, not a 500.
      symlinkSync('loop', join(statics, 'loop'))
      const reload = await http(`${url}/api/plugins/reload`, { method: 'PUT', token: session })
      expect(reload.status, reload.text).to.equal(200)
      expect(reload.text).not.to.contain(dir)
      const shelf = await pluginRecord(dir, 'shelf')
      expect(shelf.state).to.equal('invalid')
      expect(shelf.error?.code).to.equal('SM_ERR_PLUGIN_BAD_FILE')
      expect((await http(`${url}/shelf/static/hello.txt`)).status).to.equal(404)
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
    // The database is whole: a fresh reader (a command after the manager's process ended) reads what it wrote.
    const check = await cliIn(dir, ['db', 'check'])
    expect(check.code, check.stderr).to.equal(0)
    expect(readFileSync(join(dir, 'plugins', 'shelf', 'static', 'hello.txt'), 'utf8')).to.equal('hello\n')
  })

  it('loads a plugin refused for a bad link again once the link is gone: on a reload (CLI, HTTP), an enable, the next start', async () => {
    const dir = tempDir()
    writePlugins(dir, {
      'shelf/index.ts': STATIC_PLUGIN('Shelf', 'shelf'),
      'shelf/static/hello.txt': 'hello\n',
      'idle/index.ts': plugin('Idle'),
    })
    const statics = join(dir, 'plugins', 'shelf', 'static')
    const idleLink = join(dir, 'plugins', 'idle', 'nowhere')
    symlinkSync('/nonexistent/file', idleLink) // never enabled: it must not stay 'invalid' either
    expect((await cliIn(dir, ['setting', 'set', 'web.port', '0'])).code).to.equal(0)
    expect((await cliIn(dir, ['plugin', 'enable', 'shelf'])).code).to.equal(0)
    const state = async (name: string) => {
      const record = await pluginRecord(dir, name)
      return { state: record.state, code: record.error?.code }
    }
    const refused = { state: 'invalid', code: 'SM_ERR_PLUGIN_BAD_FILE' }
    const loaded = { state: 'loaded', code: undefined }
    let manager = await spawnManager(dir)
    try {
      let url = await webUrl(manager)
      const session = await adminSession(dir, url)
      const reload = () => http(`${url}/api/plugins/reload`, { method: 'PUT', token: session })
      const served = async () => (await http(`${url}/shelf/static/hello.txt`)).status
      expect(await served()).to.equal(200)
      expect(await state('idle')).to.deep.equal(refused)

      // 1. The error's own advice: `plugin reload` from the CLI.
      symlinkSync('loop', join(statics, 'loop'))
      expect((await reload()).status).to.equal(200)
      expect(await state('shelf')).to.deep.equal(refused)
      rmSync(join(statics, 'loop'))
      rmSync(idleLink)
      const cliReload = await cliIn(dir, ['plugin', 'reload'])
      expect(cliReload.code, cliReload.stderr).to.equal(0)
      expect(await state('shelf')).to.deep.equal(loaded)
      expect(await state('idle')).to.deep.equal({ state: 'disabled', code: undefined })
      expect(await served()).to.equal(200)

      // 2. PUT /api/plugins/reload.
      symlinkSync('/nonexistent/file', join(statics, 'gone'))
      expect((await reload()).status).to.equal(200)
      expect(await state('shelf')).to.deep.equal(refused)
      rmSync(join(statics, 'gone'))
      const again = await reload()
      expect(again.status, again.text).to.equal(200)
      expect(again.json).to.not.have.nested.property('data.failed[0]')
      expect(await state('shelf')).to.deep.equal(loaded)
      expect(await served()).to.equal(200)

      // 3. `plugin enable` looks at the folder again.
      symlinkSync('/etc', join(statics, 'etcdir'))
      expect((await reload()).status).to.equal(200)
      expect(await state('shelf')).to.deep.equal(refused)
      rmSync(join(statics, 'etcdir'))
      const enable = await cliIn(dir, ['plugin', 'enable', 'shelf'])
      expect(enable.code, enable.stderr).to.equal(0)
      expect(enable.stdout).to.contain('State: loaded.')
      expect(await served()).to.equal(200)

      // 4. The next start.
      symlinkSync('loop', join(statics, 'loop'))
      expect((await reload()).status).to.equal(200)
      expect(await state('shelf')).to.deep.equal(refused)
      expect(await stop(manager)).to.equal(0)
      rmSync(join(statics, 'loop'))
      manager = await spawnManager(dir)
      url = await webUrl(manager)
      expect(await served()).to.equal(200)
      expect(await state('shelf')).to.deep.equal(loaded)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })
})
