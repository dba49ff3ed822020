import { readdirSync, rmSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import * as sdk from '../../../index'
import { PluginImporter } from '../../../services/plugins/plugin-module'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { fill, fullDiskSuite, managerPid, show } from '../../helpers/full-disk'
import { untilGone } from '../../helpers/game'
import { plugin, trace, traced, writePlugins } from '../../helpers/plugins'
import { cli, cliStart } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'
import { adminSession } from '../../helpers/web-process'

// Commands run in this process (cliIn), on the data directory of the full disk as a process's
// would: with no manager each boots one here, on that disk. Cold processes stay where the process
// is the point: the listing that imports the plugins afresh, with an empty transpile cache on the
// full disk (a process that has transpiled nothing yet); the first refused status change of each
// test (exit 74 from a one-shot process, and from a client of a running manager); and the first
// manager, detached, whose own plugins must stay as they were. The manager after it runs in this
// process (managerOn).

describe('services/plugins: listing plugins on a full disk (issue 18, full disk: reads need no space)', function () {
  this.timeout(120_000)
  const disk = fullDiskSuite('sm-full-plugins-')

  it('imports them without the transpile cache when it cannot be written, and marks none invalid', async () => {
    // A user's plugin: its transpiled code is cached in the data directory, on the full disk (the
    // shipped ones' is the package's, dist/plugins-cache). One command runs it once with space.
    writePlugins(disk.data, { 'lister.ts': plugin('Lister') })
    const ran = await cliIn(disk.data, ['plugin', 'enable', 'lister'])
    expect(ran.code, show(ran)).to.equal(0)
    const before = await cliIn(disk.data, ['plugin', 'list'])
    expect(before.code, show(before)).to.equal(0)
    expect(before.stdout).to.match(/lister/)
    // An empty cache (a fresh install, or one cleaned up) on a full disk.
    const cacheDir = join(disk.data, 'cache', 'jiti')
    expect(readdirSync(cacheDir)).not.to.be.empty
    rmSync(cacheDir, { recursive: true, force: true })
    const filler = join(disk.mount, 'filler')
    fill(filler)
    try {
      // A process that has imported nothing yet.
      const listed = await cli(disk.data, ['plugin', 'list'])
      expect(listed.code, show(listed)).to.equal(0)
      expect(listed.stdout).to.equal(before.stdout)
      expect(listed.stderr).not.to.match(/SM_ERR_PLUGIN_IMPORT_FAILED|ENOSPC/)
      // What imports a plugin (discovery's inspector, the plugin's thread) does without the cache.
      const importer = new PluginImporter({ sdk }, cacheDir)
      const file = join(disk.data, 'plugins', 'lister.ts')
      const definition = await importer.import({ name: 'lister', source: 'user', root: file, entry: file, hash: '' })
      expect(definition.version).to.equal('1.0.0')
    } finally {
      unlinkSync(filler)
    }
    // With space again, a command that runs the plugin (in its thread) writes the cache as before.
    const after = await cliIn(disk.data, ['setting', 'set', 'custom.after', 'yes'])
    expect(after.code, show(after)).to.equal(0)
    expect(readdirSync(cacheDir)).not.to.be.empty
  })
})

/** A plugin that traces its loads and unloads with the PID that ran them. */
const tracing = (className: string, name: string) =>
  plugin(
    className,
    `override onLoad() { ${trace(`'load ${name} ' + process.pid`)} }
  override onUnload() { ${trace(`'unload ${name} ' + process.pid`)} }`,
  )

/** The message of a plugin status change that a full disk kept from the log. */
const refused = (data: string, plugin: string, state: string) =>
  `Error [SM_ERR_DB_FULL]: The disk that holds the database '${join(data, 'server-manager.db')}' is full, so nothing could be recorded: the plugin '${plugin}' stays ${state}. Free space on it`

describe('services/plugins: enabling or disabling a plugin on a full disk is refused, never answered as done (issue 32 item 6)', function () {
  this.timeout(240_000)
  const disk = fullDiskSuite('sm-full-plugin-status-')
  const ok = (args: string[]) => cliInOk(disk.data, args)
  const filler = () => join(disk.mount, 'filler')
  let traceFile: string | undefined

  before(() => {
    // The trace lives off the full disk; every CLI and manager this suite starts writes to it.
    traceFile = process.env.SM_TEST_TRACE
    process.env.SM_TEST_TRACE = join(tempDir(), 'trace.jsonl')
  })
  after(() => {
    if (traceFile === undefined) delete process.env.SM_TEST_TRACE
    else process.env.SM_TEST_TRACE = traceFile
  })

  /** `plugin list`'s rows of alpha and beta: name, state, enabled. */
  const listed = async () =>
    (await ok(['plugin', 'list']))
      .split('\n')
      .filter((line) => /^(alpha|beta) /.test(line))
      .map((line) => line.split(/ +/).slice(0, 3).join(' '))

  it('with no manager: plugin disable and enable exit 74 naming the database, the in-process plugins stay as they were, and so does the registry', async () => {
    writePlugins(disk.data, { 'alpha.ts': tracing('Alpha', 'alpha'), 'beta.ts': tracing('Beta', 'beta') })
    await ok(['plugin', 'enable', 'alpha'])
    fill(filler())
    try {
      const disable = await cli(disk.data, ['plugin', 'disable', 'alpha'])
      expect(disable.code, show(disable)).to.equal(74)
      expect(disable.stderr).to.include(refused(disk.data, 'alpha', 'enabled and loaded'))
      expect(disable.stdout).to.equal('')
      const enable = await cliIn(disk.data, ['plugin', 'enable', 'beta'])
      expect(enable.code, show(enable)).to.equal(74)
      expect(enable.stderr).to.include(refused(disk.data, 'beta', 'disabled and not loaded'))
      expect(await listed()).to.deep.equal(['alpha loaded yes', 'beta disabled no'])
    } finally {
      unlinkSync(filler())
    }
    expect(await listed()).to.deep.equal(['alpha loaded yes', 'beta disabled no'])
    // The refused enable never ran beta's code; every process that ran alpha unloaded it only at its end.
    expect(traced<string>().filter((line) => line.startsWith('load beta'))).to.deep.equal([])
  })

  it('with a running manager: plugin disable, enable and POST /api/plugins/<name> fail (exit 74, HTTP 507), the manager keeps its plugins loaded as they were, also after a restart', async () => {
    writePlugins(disk.data, { 'alpha.ts': tracing('Alpha', 'alpha'), 'beta.ts': tracing('Beta', 'beta') })
    await ok(['plugin', 'enable', 'alpha'])
    const started = await cliStart(disk.data, ['--detached'])
    expect(started.code, show(started)).to.equal(0)
    const pid = managerPid(disk.data) as number
    const url = /web UI and API on (http:\/\/\S+)/.exec(started.stdout)?.[1] as string
    const token = await adminSession(disk.data, url)
    expect(traced<string>()).to.include(`load alpha ${pid}`)
    fill(filler())
    try {
      const disable = await cli(disk.data, ['plugin', 'disable', 'alpha'])
      expect(disable.code, show(disable)).to.equal(74)
      expect(disable.stderr).to.include(refused(disk.data, 'alpha', 'enabled and loaded'))
      const enable = await cliIn(disk.data, ['plugin', 'enable', 'beta'])
      expect(enable.code, show(enable)).to.equal(74)
      expect(enable.stderr).to.include(refused(disk.data, 'beta', 'disabled and not loaded'))
      for (const [name, enabled] of [
        ['alpha', false],
        ['beta', true],
      ] as const) {
        const post = await http(`${url}/api/plugins/${name}`, { token, body: { enabled } })
        expect(post.status, post.text).to.equal(507)
        expect(post.json.code).to.equal('SM_ERR_DB_FULL')
      }
      expect(await listed()).to.deep.equal(['alpha loaded yes', 'beta disabled no'])
    } finally {
      unlinkSync(filler())
    }
    // The manager's own plugins: alpha never unloaded, beta never loaded.
    expect(traced<string>()).not.to.include(`unload alpha ${pid}`)
    expect(traced<string>().filter((line) => line.startsWith('load beta'))).to.deep.equal([])
    expect(await ok(['status'])).to.match(/^ {2}plugins {2}alpha$/m)
    expect(await listed()).to.deep.equal(['alpha loaded yes', 'beta disabled no'])
    // A new manager (in this process) reads the log afresh: the same. Commands in this process
    // loaded alpha here before, so only what it traces from its start counts.
    await ok(['web', 'stop'])
    // Gone, and its manager.json with it (removed as it ends, after its socket is closed).
    await untilGone(pid)
    const mark = traced<string>().length
    const again = await managerOn(disk.data)
    const next = managerPid(disk.data) as number
    expect(next).to.equal(process.pid)
    expect(traced<string>().slice(mark)).to.include(`load alpha ${next}`)
    expect(await ok(['status'])).to.match(/^ {2}plugins {2}alpha$/m)
    expect(await listed()).to.deep.equal(['alpha loaded yes', 'beta disabled no'])
    expect((await again.stop()).filter((r) => !r.ok)).to.deep.equal([])
    expect(traced<string>().filter((line) => line.startsWith('load beta'))).to.deep.equal([])
  })
})
