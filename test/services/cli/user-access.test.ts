import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'

/** Issue 34 item 1: per-server access from the CLI, as the data directory's owner grants it. */
describe('user grant / revoke / access / clear-access: per-server access from the CLI', () => {
  it('grants, shows, narrows and clears a user’s reach, and refuses admins, unknown rights and servers with codes', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'add', 's2', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['user', 'create', 'root', '--role', 'admin', '--password-stdin'], {}, 'a long password\n')
    await cliInOk(data, ['user', 'create', 'ann', '--role', 'moderator', '--password-stdin'], {}, 'a long password\n')
    expect(await cliInOk(data, ['user', 'access', 'ann'])).to.include(
      "'ann' has the moderator role's reach on every server",
    )

    const granted = await cliInOk(data, ['user', 'grant', 'ann', 's1', '--rights', 'console,power'])
    expect(granted).to.include("'ann' may now on 's1': view, console, power.")
    expect(granted).to.include("From now on 'ann' sees only the servers granted to them")
    // A second grant adds to the first.
    expect(await cliInOk(data, ['user', 'grant', 'ann', 's2', '-r', 'files'])).to.equal(
      "'ann' may now on 's2': view, files.\n",
    )
    const access = await cliInOk(data, ['user', 'access', 'ann'])
    expect(access).to.match(/s1\s+view, console, power/)
    expect(access).to.match(/s2\s+view, files/)
    expect(await cliInOk(data, ['user', 'list'])).to.match(/ann\s+moderator\s+s1, s2/)
    expect(await cliInOk(data, ['user', 'revoke', 'ann', 's1', '--rights', 'power'])).to.equal(
      "'ann' may now on 's1': view, console.\n",
    )
    expect(await cliInOk(data, ['user', 'revoke', 'ann', 's2'])).to.equal("'ann' may now on 's2': none.\n")
    const json = JSON.parse(await cliInOk(data, ['user', 'access', 'ann', '--json']))
    expect(json).to.deep.equal({
      username: 'ann',
      role: 'moderator',
      scoped: true,
      servers: { s1: ['view', 'console'] },
    })

    const toAdmin = await cliIn(data, ['user', 'grant', 'root', 's1', '-r', 'view'])
    expect(toAdmin.code).to.not.equal(0)
    expect(toAdmin.stderr).to.include('SM_ERR_AUTH_ADMIN_HAS_ALL')
    const noServer = await cliIn(data, ['user', 'grant', 'ann', 'nope', '-r', 'view'])
    expect([noServer.code, noServer.stderr.includes('SM_ERR_SERVER_NOT_FOUND')]).to.deep.equal([66, true])
    const badRight = await cliIn(data, ['user', 'grant', 'ann', 's1', '-r', 'root'])
    expect(badRight.code).to.not.equal(0)
    expect(badRight.stderr).to.include('root')

    expect(await cliInOk(data, ['user', 'clear-access', 'ann'])).to.equal(
      "'ann' has the moderator role's reach on every server again.\n",
    )
    expect(await cliInOk(data, ['user', 'list'])).to.match(/ann\s+moderator\s+all/)
    const facts = await cliInOk(data, ['events', '--type', 'auth:server_access*', '--json'])
    expect(facts.trim().split('\n').length).to.be.greaterThan(0)
    expect(facts).to.include('auth:server_access_cleared')
  })
})
