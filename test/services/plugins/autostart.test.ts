import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir, untilStatus } from '../../helpers/game'
import { spawnManager, stop, waitForLine } from '../../helpers/run'

/** The shipped plugins, which the test setup turns off for every other test. */
const withDefaults = { SM_DEFAULT_PLUGINS: 'on' }

/**
 * The commands run in this process (cliInOk), with the shipped plugins: the setup before the
 * manager runs, then clients of it. The manager stays a process of its own: what it printed (no
 * unhandled rejection) and the code it exits with are what the test reads.
 */
const ok = (dataDir: string, args: string[]): Promise<string> => cliInOk(dataDir, args, withDefaults)

describe('plugins/default/autostart: no unhandled rejection (issue 18 item 3 of the faults retest)', function () {
  this.timeout(60_000)

  it('disabled while a server it starts is still starting: it leaves the rest alone, with no unhandled rejection', async () => {
    const data = gameDataDir()
    await ok(data, ['setting', 'set', 'web.enabled', 'false'])
    // s1 says "Server started." only after a console line: autostart waits in its start.
    await ok(data, ['server', 'add', 's1', '--dir', fakeBedrockDir({ env: { FAKE_READY_AFTER_LINES: '1' } })])
    await ok(data, ['server', 'add', 's2', '--dir', fakeBedrockDir()])
    for (const name of ['s1', 's2']) await ok(data, ['server', 'config', name, 'autostart', 'true'])

    const manager = await spawnManager(data, [], withDefaults, 'as set')
    let output = ''
    manager.stdout.on('data', (chunk) => {
      output += chunk
    })
    manager.stderr.on('data', (chunk) => {
      output += chunk
    })
    await waitForLine(manager, /^ready in/)
    // Its start under way (the supervisor exists from then on): a condition, looked at until it holds.
    while (!/s1 +bedrock +starting/.test(await ok(data, ['server', 'list']))) {}
    await untilStatus(data, 's1', (e) => e.status === 'starting')
    await ok(data, ['plugin', 'disable', 'autostart'])
    const started = waitForLine(manager, /Started 's1' \(autostart\)/, { stream: 'stderr' })
    await ok(data, ['server', 'send', 's1', 'hello'])
    await started
    expect(await stop(manager)).to.equal(0)
    expect(output).not.to.match(/unhandled|SM_ERR_PLUGIN_STRAY_ERROR|This is a bug/)
    expect(await ok(data, ['server', 'list'])).to.match(/s2 +bedrock +stopped/)
  })
})
