import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { untilGone } from '../../helpers/game'
import { writePlugins } from '../../helpers/plugins'
import { cliStart, type RunResult, spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http, signIn } from '../../helpers/web'

const ROUTER_PLUGIN = `import { PluginBase } from 'server-manager'
import { Router } from 'server-manager/web'
export default class Routed extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/routed' })
    router.get('/ping', (ctx) => { ctx.body = { pong: true } })
    return [router]
  }
}
`

/** A command run in this process (cliIn), expecting exit 0: its stdout. */
async function ok(dataDir: string, args: string[], input?: string): Promise<string> {
  const result = await cliIn(dataDir, args, {}, input)
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0)
  return result.stdout
}

// The managers are processes: `start` as a user runs it, ended by `web stop` with exit 0, and
// `start --detached` (twice, the second refused) returning while the manager runs on in the
// background. The commands sent to them are clients run in this process (cliIn: the same output
// and exit code as a process).
describe('services/web: the web server in a manager process, managed from the CLI', () => {
  it('start serves the web UI on the printed URL; users, API tokens and plugin routes are managed from the CLI; web stop ends it cleanly', async () => {
    const dataDir = tempDir()
    writePlugins(dataDir, { 'routed.ts': ROUTER_PLUGIN })
    await ok(dataDir, ['setting', 'set', 'web.port', '0'])
    const manager = await spawnManager(dataDir)
    const exited = new Promise<number | null>((resolve) => manager.once('exit', resolve))
    try {
      const line = await waitForLine(manager, /web UI and API on http:\/\/\S+/)
      const url = /(http:\/\/\S+?)\s/.exec(`${line} `)?.[1] as string
      const status = JSON.parse(await ok(dataDir, ['web', 'status', '--json']))
      expect(status).to.include({ running: true, listening: true, url })

      await ok(dataDir, ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'], 'a long password\n')
      expect(
        JSON.parse(await ok(dataDir, ['user', 'list', '--json'])).map((u: { username: string }) => u.username),
      ).to.deep.equal(['boss'])
      const session = await signIn(url, 'boss', 'a long password')
      const weak = await cliIn(dataDir, ['user', 'create', 'x', '--password-stdin'], {}, 'short\n')
      expect(weak.code).to.equal(64)
      expect(weak.stderr).to.contain('SM_ERR_AUTH_WEAK_PASSWORD')

      const token = (await ok(dataDir, ['token', 'create', 'ci', '--role', 'user'])).trim()
      expect((await http(`${url}/api/servers`, { token })).status).to.equal(200)
      expect((await http(`${url}/api/servers/any/start`, { token, method: 'POST' })).status).to.equal(403)
      const [listed] = JSON.parse(await ok(dataDir, ['token', 'list', '--json']))
      expect(listed).to.include({ name: 'ci', role: 'user', owner: 'boss' })
      await ok(dataDir, ['token', 'revoke', listed.id])
      expect((await http(`${url}/api/servers`, { token })).status).to.equal(401)

      expect((await http(`${url}/routed/ping`, { token: session })).status).to.equal(404)
      await ok(dataDir, ['plugin', 'enable', 'routed'])
      expect((await http(`${url}/routed/ping`, { token: session })).json).to.deep.equal({ pong: true })
      expect((await http(`${url}/api/openapi.json`)).json.paths).to.have.property('/routed/ping')
      await ok(dataDir, ['plugin', 'disable', 'routed'])
      expect((await http(`${url}/routed/ping`, { token: session })).status).to.equal(404)
      expect((await http(`${url}/api/openapi.json`)).json.paths).not.to.have.property('/routed/ping')

      // A live event stream is open when the manager is asked to stop: it ends, and so does the manager, with 0.
      const stream = await fetch(`${url}/api/events/stream?topics=server_status`, {
        headers: { Authorization: `Bearer ${session}` },
      })
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/)
      const reader = stream.body?.getReader()
      const first = await reader?.read()
      expect(Buffer.from(first?.value ?? []).toString()).to.contain('subscribed to server_status')
      const streamEnded = (async () => {
        for (;;) if ((await reader?.read())?.done) return true
      })()
      expect(await ok(dataDir, ['web', 'stop'])).to.match(/The manager \(PID \d+\) stopped/)
      expect(await exited).to.equal(0)
      expect(await streamEnded).to.equal(true)
      expect(await ok(dataDir, ['web', 'status'])).to.contain('No manager runs')
    } finally {
      if (manager.exitCode === null) await stop(manager)
    }
  })

  it('start --detached returns once the manager answers, leaving it running in the background until web stop', async () => {
    const dataDir = tempDir()
    await ok(dataDir, ['setting', 'set', 'web.port', '0'])
    const started = await cliStart(dataDir, ['--detached'])
    let stopped: RunResult
    try {
      expect(started.code, started.stderr).to.equal(0)
      expect(started.stdout).to.match(/runs in the background \(PID \d+\)/)
      const url = /web UI and API on (http:\/\/\S+)/.exec(started.stdout)?.[1] as string
      expect((await http(`${url}/api/setup/status`)).json).to.deep.equal({ needs_setup: true })
      const again = await cliStart(dataDir, ['--detached'])
      expect(again.code).not.to.equal(0)
      expect(again.stderr).to.contain('SM_ERR_MANAGER_RUNNING')
    } finally {
      // Whatever failed above: a manager left running in the background outlives the test.
      stopped = await cliIn(dataDir, ['web', 'stop'])
    }
    expect(stopped.code, stopped.stderr).to.equal(0)
    // web stop answers once the manager has stopped; its process ends then (a process that runs
    // it is slow enough to hide this wait, an in-process one is not).
    await untilGone(Number(/runs in the background \(PID (\d+)\)/.exec(started.stdout)?.[1]))
    const down = await cliIn(dataDir, ['web', 'stop'])
    expect(down.code).to.equal(3)
    expect(down.stderr).to.contain('SM_ERR_MANAGER_NOT_RUNNING')
  })
})
