import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'

/** Issue 34 item 7: a change says what the value was in effect, never `undefined`. */
describe('server config <name> <key> <value>: what it was', () => {
  it('says a value the server had none of, one it inherited and one of its own', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 'lobby', '--dir', fakeBedrockDir()])
    expect(await cliInOk(data, ['server', 'config', 'lobby', 'memory_mb', '512'])).to.equal(
      'lobby: memory_mb = 512 (it had none)\n',
    )
    expect(await cliInOk(data, ['server', 'config', 'lobby', 'memory_mb', '1024'])).to.equal(
      'lobby: memory_mb = 1024 (was 512)\n',
    )
    const inherited = await cliInOk(data, ['server', 'config', 'lobby', 'restart.max_restarts', '5'])
    expect(inherited, inherited).to.match(
      /^lobby: restart\.max_restarts = 5 \(was \d+, inherited from servers\.restart\.max_restarts\)\n$/,
    )
    expect(await cliInOk(data, ['server', 'config', 'lobby', 'restart.max_restarts', '--unset'])).to.match(
      /^lobby: restart\.max_restarts has no value of its own \(was 5\); in effect now: \d+\n$/,
    )
    expect(await cliInOk(data, ['server', 'config', 'lobby', 'memory_mb', '--unset'])).to.equal(
      'lobby: memory_mb has no value of its own (was 1024)\n',
    )
  })
})
