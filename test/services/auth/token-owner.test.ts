import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { tempDir } from '../../helpers/temp-dir'

/** Issue 34 item 7: a token never acts for someone it was not asked to. */
describe('services/auth: token create with no admin', () => {
  it('says no admin exists instead of acting for another user, and works with --user', async () => {
    const dir = tempDir()
    await cliInOk(dir, ['user', 'create', 'alice', '--role', 'user', '--password-stdin'], {}, 'a long password\n')
    const refused = await cliIn(dir, ['token', 'create', 'ci', '--role', 'user'])
    expect(refused.code).to.equal(65)
    expect(refused.stderr).to.include('SM_ERR_AUTH_NO_ADMIN').and.to.include('--user')
    expect(refused.stdout).to.equal('')
    expect(JSON.parse(await cliInOk(dir, ['token', 'list', '--json']))).to.deep.equal([])
    const made = await cliIn(dir, ['token', 'create', 'ci', '--role', 'user', '--user', 'alice'])
    expect(made.code, made.stderr).to.equal(0)
    expect(made.stderr).to.include('acting for alice')
  })
})
