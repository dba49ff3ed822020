import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { fakeBedrockDir } from '../../helpers/game'
import { http, startWeb } from '../../helpers/web'

/** Issue 34 item 5: the panel and the API say what to do there; the CLI says what to type. */
describe('services/web: errors in web words, the same codes in command words', () => {
  it('answers a missing server, user and a stopped server in the words of the panel, and the CLI in its own', async () => {
    const web = await startWeb()
    try {
      await web.manager.bus.request('servers:add', { name: 'lobby', dir: fakeBedrockDir() })
      const api = (path: string, method = 'GET') => http(`${web.url}/api${path}`, { method, token: web.admin })
      const missing = await api('/servers/nope')
      expect(missing.json).to.include({
        code: 'SM_ERR_SERVER_NOT_FOUND',
        message: "No server is named 'nope'. The dashboard lists the servers you may see.",
      })
      const user = await api('/users/nobody', 'DELETE')
      expect(user.json).to.include({
        code: 'SM_ERR_AUTH_USER_NOT_FOUND',
        message: "No user is named 'nobody'. The Users page lists them.",
      })
      const stop = await api('/servers/lobby/stop', 'POST')
      expect(stop.json.code).to.equal('SM_ERR_SERVER_NOT_RUNNING')
      expect(stop.json.message).to.equal(
        "The server 'lobby' is stopped: it is not running, so there is nothing to stop.",
      )
      for (const body of [missing, user, stop]) expect(body.text).to.not.match(/server-manager |'server |--[a-z]/)
    } finally {
      await web.manager.stop()
    }
    // The command line keeps its own words for the same codes.
    const cli = await cliIn(web.dataDir, ['server', 'info', 'nope'])
    expect(cli.stderr).to.include("'server-manager server list' shows them")
  })
})
