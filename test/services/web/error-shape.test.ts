import { existsSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { writePlugins } from '../../helpers/plugins'
import { spawnManager, stop, waitForLine } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'
import { http, type Reply } from '../../helpers/web'

const FAILING_PLUGIN = `import { PluginBase } from 'server-manager'
import { allowPublic, Router } from 'server-manager/web'
export default class Failing extends PluginBase {
  static version = '1.0.0'
  getRouters() {
    const router = new Router({ prefix: '/failing' })
    router.post('/echo', allowPublic, (ctx) => { ctx.body = { got: ctx.request.body } })
    router.get('/crash', allowPublic, () => {
      throw new Error("ENOENT: no such file or directory, open '/srv/secret/world.db'")
    })
    router.get('/deep', allowPublic, (ctx) => {
      let value: unknown = []
      for (let i = 0; i < 20000; i++) value = [value]
      ctx.body = { value }
    })
    return [router]
  }
}
`

function expectCoded(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).to.equal(status)
  expect(reply.headers.get('content-type'), reply.text).to.match(/^application\/json/)
  expect(reply.json).to.include({ status: 'error', code })
  expect(reply.json.message).to.be.a('string').and.not.equal('')
}

/** A 5xx tells what the code means and where the detail is, and nothing of the detail itself. */
function expectGeneric(reply: Reply): string {
  expect(reply.text).not.to.match(/\/srv|\/tmp|\/work|\/home|\/root|ENOENT|RangeError|Maximum call stack/)
  const id = /request ([0-9a-f]{8})/.exec(reply.json.message)?.[1]
  expect(id, reply.json.message).to.be.a('string')
  expect(reply.json.message).to.contain("manager's log")
  return id as string
}

describe('services/web: every error is the coded JSON shape, and a 5xx keeps its detail for the log (issue 18 item 14)', () => {
  it('answers deep, malformed and failing requests with coded JSON; a 5xx body names a request id that the log explains', async () => {
    const dataDir = tempDir()
    writePlugins(dataDir, { 'failing.ts': FAILING_PLUGIN })
    const enabled = await cliIn(dataDir, ['plugin', 'enable', 'failing'])
    expect(enabled.code, enabled.stderr).to.equal(0)
    expect((await cliIn(dataDir, ['setting', 'set', 'web.port', '0'])).code).to.equal(0)
    // Set up, so GETs are answered rather than sent to the setup page.
    const admin = await cliIn(
      dataDir,
      ['user', 'create', 'boss', '--role', 'admin', '--password-stdin'],
      {},
      'a long pass\n',
    )
    expect(admin.code, admin.stderr).to.equal(0)
    const manager = await spawnManager(dataDir)
    const exited = new Promise<number | null>((resolve) => manager.once('exit', resolve))
    try {
      const line = await waitForLine(manager, /web UI and API on http:\/\/\S+/, { timeoutMs: 60_000 })
      const url = /(http:\/\/\S+?)\s/.exec(`${line} `)?.[1] as string

      // 10,000 levels of JSON to a plugin route (2,000 went through before; 10,000 overflowed Koa's serialiser).
      for (const depth of [2_000, 10_000]) {
        const deep = await http(`${url}/failing/echo`, { raw: `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}` })
        expectCoded(deep, 400, 'SM_ERR_WEB_JSON_TOO_DEEP')
      }
      const shallow = await http(`${url}/failing/echo`, { body: { a: [[[1]]] } })
      expect(shallow.json).to.deep.equal({ got: { a: [[[1]]] } })

      // Bodies the parsers refuse.
      expectCoded(await http(`${url}/failing/echo`, { raw: '{"a":' }), 400, 'SM_ERR_WEB_BAD_JSON')
      expectCoded(
        await http(`${url}/failing/echo`, { raw: 'x', headers: { 'Content-Type': 'multipart/form-data' } }),
        400,
        'SM_ERR_WEB_BAD_MULTIPART',
      )

      // A request Node's parser cannot read.
      const { hostname, port } = new URL(url)
      const raw = await new Promise<string>((resolve, reject) => {
        let text = ''
        const socket = connect(Number(port), hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'))
        socket.on('data', (chunk) => {
          text += chunk
        })
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      })
      expect(raw).to.match(/^HTTP\/1\.1 400 /)
      expect(raw).to.match(/content-type: application\/json/i)
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).to.include({ code: 'SM_ERR_WEB_REQUEST_REFUSED' })

      // A route that fails with a raw message and a path, and one whose answer cannot be serialised.
      const crash = await http(`${url}/failing/crash`)
      expectCoded(crash, 500, 'SM_ERR_INTERNAL')
      const crashId = expectGeneric(crash)
      const deepAnswer = await http(`${url}/failing/deep`)
      expectCoded(deepAnswer, 500, 'SM_ERR_INTERNAL')
      const deepId = expectGeneric(deepAnswer)

      // The detail is in the log, under the request id.
      const log = join(dataDir, 'logs', 'server-manager.log')
      const logged = (id: string) =>
        existsSync(log)
          ? readFileSync(log, 'utf8')
              .split('\n')
              .find((l) => l.includes(id))
          : undefined
      while (!logged(crashId) || !logged(deepId)) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(logged(crashId)).to.contain('/srv/secret/world.db').and.contain('GET /failing/crash')
      expect(logged(deepId)).to.contain('GET /failing/deep')
    } finally {
      if (manager.exitCode === null) await stop(manager)
    }
    expect(await exited).to.equal(0)
  })
})
