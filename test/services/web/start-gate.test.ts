import { existsSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { writePlugins } from '../../helpers/plugins'
import { freePort } from '../../helpers/ports'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http } from '../../helpers/web'

/** A plugin whose onLoad and onUnload, once armed, hold the manager's start and stop open until the test releases them. */
function gatePlugin(dir: string): string {
  const [armed, loading, release, unloading, unload] = ['armed', 'loading', 'release', 'unloading', 'unload'].map(
    (name) => JSON.stringify(join(dir, name)),
  )
  return `import { existsSync, writeFileSync } from 'node:fs'
import { PluginBase } from 'server-manager'
export default class Gate extends PluginBase {
  static version = '1.0.0'
  async onLoad() {
    if (!existsSync(${armed})) return
    writeFileSync(${loading}, '')
    while (!existsSync(${release})) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  async onUnload() {
    if (!existsSync(${armed})) return
    writeFileSync(${unloading}, '')
    while (!existsSync(${unload})) await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
`
}

/** Resolves once `check` holds, checking again on each turn of a short timer (the condition, not a duration, ends the wait). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10))
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

describe('services/web: nothing is served before every service and plugin is up (issue 18 item 23)', () => {
  it('answers 503 with Retry-After and a coded body while a plugin still loads (and again while the manager stops), never 500, and serves once the manager has started', async () => {
    const dataDir = tempDir()
    const signals = tempDir()
    writePlugins(dataDir, { 'gate.ts': gatePlugin(signals) })
    const port = await freePort()
    await cliInOk(dataDir, ['setting', 'set', 'web.port', String(port)])
    await cliInOk(dataDir, ['setting', 'set', 'plugins.hook_timeout_ms', '600000'])
    await cliInOk(dataDir, ['plugin', 'enable', 'gate'])
    await cliInOk(dataDir, ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'], {}, 'a long password\n')
    const token = (await cliInOk(dataDir, ['token', 'create', 'ci', '--role', 'admin'])).trim()
    writeFileSync(join(signals, 'armed'), '')

    const manager = await spawnManager(dataDir, [], {}, port)
    const exited = new Promise<number | null>((resolve) => manager.once('exit', resolve))
    const trigger = () =>
      http(`http://127.0.0.1:${port}/api/plugins/trigger_event`, {
        token,
        body: { event_name: 'gate:ping', payload: {} },
      })
    try {
      // The plugin is loading: every service before it has started, and the port is open.
      await until(() => existsSync(join(signals, 'loading')))
      await until(() => accepts(port))
      const early = await trigger()
      expect(early.status, early.text).to.equal(503)
      expect(early.headers.get('retry-after')).to.equal('1')
      expect(early.headers.get('content-type')).to.match(/^application\/json/)
      expect(early.json).to.include({ status: 'error', code: 'SM_ERR_WEB_UNAVAILABLE' })
      expect(early.json.message).to.contain('starting')
      const status = await http(`http://127.0.0.1:${port}/api/status`, { token })
      expect(status.json.code).to.equal('SM_ERR_WEB_UNAVAILABLE')

      const ready = waitForLine(manager, /^ready in /, { timeoutMs: 60_000 })
      writeFileSync(join(signals, 'release'), '')
      // Each answer is "not yet" or the answer: never a 500 from a service that is not up.
      let answer = await trigger()
      while (answer.status === 503) answer = await trigger()
      expect(answer.status, answer.text).to.equal(200)
      expect(answer.json.status).to.equal('success')
      await ready

      // Stopping: the plugins go down first, and meanwhile nothing is served either.
      manager.kill('SIGTERM')
      await until(() => existsSync(join(signals, 'unloading')))
      const late = await trigger()
      expect(late.status, late.text).to.equal(503)
      expect(late.json).to.include({ status: 'error', code: 'SM_ERR_WEB_UNAVAILABLE' })
      expect(late.json.message).to.contain('stopping')
      writeFileSync(join(signals, 'unload'), '')
      expect(await exited).to.equal(0)
    } finally {
      writeFileSync(join(signals, 'release'), '')
      writeFileSync(join(signals, 'unload'), '')
      if (manager.exitCode === null && manager.signalCode === null) await stop(manager, 'SIGKILL')
    }
  })
})
