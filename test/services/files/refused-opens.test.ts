import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { expect } from 'chai'
import { fakeBedrockDir } from '../../helpers/game'
import { http, startWeb, type WebSetup } from '../../helpers/web'

/**
 * What the system will not open as a file (a socket, an entry the manager's user may not read)
 * is answered with the file manager's coded error that says so, never an internal error or a
 * "changed meanwhile".
 */
describe('services/files: an entry the system will not open is a coded refusal', function () {
  this.timeout(120_000)
  let web: WebSetup
  let dir: string
  let socket: Server
  const api = (path: string, options: Parameters<typeof http>[1] = {}) =>
    http(`${web.url}/api/servers/alpha/files${path}`, { token: web.admin, ...options })

  before(async () => {
    web = await startWeb()
    dir = fakeBedrockDir()
    socket = createServer()
    await new Promise<void>((resolve) => socket.listen(join(dir, 'game.sock'), resolve))
    await web.manager.bus.request('servers:add', { name: 'alpha', dir })
  })
  after(async () => {
    socket?.close()
    await web?.manager.stop()
  })

  it('refuses to show or download a socket as a file, saying what it is', async () => {
    for (const [what, reply] of [
      ['read', await api('/text?path=game.sock')],
      ['download', await api('/download?path=game.sock')],
    ] as const) {
      expect([reply.status, reply.json?.code], `${what}: ${reply.text}`).to.deep.equal([422, 'SM_ERR_FILE_WRONG_TYPE'])
      expect(reply.json.message, what).to.contain('is a special file, not a file')
    }
  })

  it("refuses what the manager's user may not read with SM_ERR_FILE_ACCESS_DENIED", async function () {
    // Root reads whatever the permission bits say.
    if (process.getuid?.() === 0) this.skip()
    writeFileSync(join(dir, 'secret.txt'), 'secret\n', { mode: 0 })
    mkdirSync(join(dir, 'closed'), { mode: 0 })
    try {
      for (const [what, reply] of [
        ['list', await api('?path=closed')],
        ['read', await api('/text?path=secret.txt')],
        ['save', await api('/text', { method: 'PUT', body: { path: 'secret.txt', text: 'x', expected_hash: '0' } })],
        ['download', await api('/download?path=secret.txt')],
      ] as const) {
        expect([reply.status, reply.json?.code], `${what}: ${reply.text}`).to.deep.equal([
          403,
          'SM_ERR_FILE_ACCESS_DENIED',
        ])
        expect(reply.text, what).to.not.contain('secret\n')
      }
    } finally {
      chmodSync(join(dir, 'closed'), 0o755)
      chmodSync(join(dir, 'secret.txt'), 0o644)
    }
  })
})
