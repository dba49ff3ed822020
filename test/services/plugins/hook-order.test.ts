import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'
import { plugin, writePlugins } from '../../helpers/plugins'

/** Issue 34 item 8: the user's plugins decide before the shipped ones act. */
describe("services/plugins: a user's plugins run their hooks before the shipped ones", () => {
  it('warns no player of a stop that a plugin of the user vetoes, whatever its name', async () => {
    const data = gameDataDir()
    const on = { SM_DEFAULT_PLUGINS: 'on' }
    // Named to sort after lifecycle_notifications: the order is not the names'.
    writePlugins(data, {
      'zz_guard.ts': plugin('ZzGuard', "beforeServerStop() { return { cancel: true, reason: 'a raid is on' } }"),
    })
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_PLAYERS: 'steve' } })], on)
    await cliInOk(data, ['setting', 'set', 'custom.lifecycle_notifications.delay_s', '0'], on)
    await cliInOk(data, ['plugin', 'enable', 'zz_guard'], on)
    await cliInOk(data, ['server', 'start', 's1'], on)
    try {
      const stop = await cliIn(data, ['server', 'stop', 's1'], on)
      expect(stop.code).to.equal(1)
      expect(stop.stderr).to.equal(
        "Stopping s1...\nError [SM_ERR_SERVER_CHANGE_CANCELLED]: The stop of 's1' was cancelled by 'plugin:zz_guard': a raid is on. Nothing was changed.\n",
      )
      expect(readFileSync(RunFiles.of(data, 's1').log, 'utf8')).not.to.include('Server stopping')
    } finally {
      await cliInOk(data, ['server', 'kill', 's1'], on)
    }
  })
})
