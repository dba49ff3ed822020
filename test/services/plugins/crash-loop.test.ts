import { once } from 'node:events'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { plugin, pluginRecord, writePlugins } from '../../helpers/plugins'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

/*
 * The managers stay processes (spawnManager): a plugin ends the manager's whole process with
 * SIGKILL, an admin kills one with kill -9, and the next start is a new process that finds what
 * the dead one left. The commands run in this process (cliIn): the set-up, before the plugin is
 * armed (enabling it loads it harmlessly), and the clients of a running manager.
 */

/** Ends the manager's process from the plugin's thread (worker threads share it) once `armed` is there. */
const killer = (when: string) =>
  plugin(
    'Boom',
    `${when} {
    const { existsSync } = require('node:fs')
    if (existsSync(require('node:path').join(process.env.SM_DATA_DIR as string, 'boom.armed'))) process.kill(process.pid, 'SIGKILL')
  }`,
  )

async function setUp(files: Record<string, string>): Promise<string> {
  const dir = tempDir()
  await cliInOk(dir, ['setting', 'set', 'web.port', '0'])
  writePlugins(dir, files)
  for (const name of Object.keys(files)) await cliInOk(dir, ['plugin', 'enable', name.replace(/\.ts$/, '')])
  writeFileSync(join(dir, 'boom.armed'), '')
  return dir
}

/** Starts a manager that the plugin kills: resolves once it died by SIGKILL. */
async function diedStarting(dir: string): Promise<void> {
  const manager = await spawnManager(dir)
  const [code, signal] = (await once(manager, 'exit')) as [number | null, NodeJS.Signals | null]
  expect({ code, signal }).to.deep.equal({ code: null, signal: 'SIGKILL' })
}

describe('services/plugins: a plugin that ends the manager’s process is kept out (real managers)', function () {
  this.timeout(240_000)

  it('keeps out by the third start a plugin whose onLoad kills the manager, naming it with a code; an innocent plugin stays', async () => {
    const dir = await setUp({ 'boom.ts': killer('override onLoad()'), 'calm.ts': plugin('Calm') })
    await diedStarting(dir)
    // One death keeps nothing out: a second start tries every plugin again (and dies again).
    expect(existsSync(join(dir, 'plugins.running.json'))).to.equal(true)
    await diedStarting(dir)
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      const boom = await pluginRecord(dir, 'boom')
      expect(boom).to.include({ state: 'failed', enabled: true })
      expect(boom.error?.code).to.equal('SM_ERR_PLUGIN_CRASH_LOOP')
      expect(boom.error?.message).to.contain(
        "The manager's process ended without stopping while the plugin 'boom' was loading, 2 starts in a row",
      )
      const info = await cliInOk(dir, ['plugin', 'info', 'boom'])
      expect(info).to.contain('SM_ERR_PLUGIN_CRASH_LOOP')
      expect(info).to.match(
        /^blocked +since \S+ \(the manager's process died while it was loading, starts in a row\); kept out until 'plugin enable boom'/m,
      )
      expect(readFileSync(join(dir, 'logs', 'server-manager.log'), 'utf8')).to.contain(
        '"code":"SM_ERR_PLUGIN_CRASH_LOOP"',
      )
      // Loaded beside it at the first death, alone at the second: not struck twice, so not kept out.
      const calm = await pluginRecord(dir, 'calm')
      expect(calm.state).to.equal('loaded')
      expect(calm.blocked).to.equal(undefined)
      expect((await cliIn(dir, ['status'])).code).to.equal(0)
      // Fixed, then enabled by an admin: it runs again.
      rmSync(join(dir, 'boom.armed'))
      await cliInOk(dir, ['plugin', 'enable', 'boom'])
      const back = await pluginRecord(dir, 'boom')
      expect(back.state).to.equal('loaded')
      expect(back.blocked).to.equal(undefined)
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
    // A clean stop leaves no record: the next start strikes nobody.
    expect(existsSync(join(dir, 'plugins.running.json'))).to.equal(false)
  })

  it('does not keep out the plugins of a manager killed once from outside (kill -9 by an admin)', async () => {
    const dir = await setUp({ 'calm.ts': plugin('Calm') })
    const first = await spawnManager(dir)
    await waitForLine(first, /^ready in/)
    first.kill('SIGKILL')
    await once(first, 'exit')
    const second = await spawnManager(dir)
    try {
      await waitForLine(second, /^ready in/)
      const calm = await pluginRecord(dir, 'calm')
      expect(calm.state).to.equal('loaded')
      expect(calm.blocked).to.equal(undefined)
    } finally {
      expect(await stop(second)).to.equal(0)
    }
  })

  it('keeps out a plugin that kills the manager from a timer after it loaded', async () => {
    const dir = await setUp({ 'boom.ts': killer('override onLoad() { setTimeout(() => this.boom(), 300) }\n  boom()') })
    await diedStarting(dir)
    await diedStarting(dir)
    const manager = await spawnManager(dir)
    try {
      await waitForLine(manager, /^ready in/)
      const boom = await pluginRecord(dir, 'boom')
      expect(boom.error?.code).to.equal('SM_ERR_PLUGIN_CRASH_LOOP')
      expect(boom.error?.message).to.contain("while the plugin 'boom' was running")
    } finally {
      expect(await stop(manager)).to.equal(0)
    }
  })
})
