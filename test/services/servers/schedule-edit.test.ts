import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir } from '../../helpers/game'

/** Issue 34 item 6: a schedule is changed in place, its id kept, each change a fact. */
describe('server schedule edit: a schedule changed in place', () => {
  it('changes only what is given, keeps its id, drops a command with another action, records it, and refuses what could not run', async () => {
    const data = gameDataDir()
    await cliInOk(data, ['server', 'add', 'lobby', '--dir', fakeBedrockDir()])
    await cliInOk(data, ['server', 'add', 'other', '--dir', fakeBedrockDir()])
    const added = JSON.parse(
      await cliInOk(data, [
        'server',
        'schedule',
        'add',
        'lobby',
        '--cron',
        '0 4 * * *',
        '--action',
        'command',
        '--command',
        'say hi',
        '--json',
      ]),
    )
    const changed = JSON.parse(
      await cliInOk(data, ['server', 'schedule', 'edit', 'lobby', added.id, '--cron', '30 5 * * *', '--json']),
    )
    expect(changed).to.include({
      id: added.id,
      cron: '30 5 * * *',
      action: 'command',
      command: 'say hi',
      addedAt: added.addedAt,
    })
    const backup = await cliInOk(data, ['server', 'schedule', 'edit', 'lobby', added.id, '--action', 'backup'])
    expect(backup).to.match(new RegExp(`^Schedule ${added.id} changed: backup 'lobby' at '30 5 \\* \\* \\*', next `))
    const listed = JSON.parse(await cliInOk(data, ['server', 'schedule', 'list', 'lobby', '--json']))
    expect(listed).to.have.length(1)
    expect(listed[0]).to.include({ id: added.id, action: 'backup' }).and.not.have.property('command')

    const bad = await cliIn(data, ['server', 'schedule', 'edit', 'lobby', added.id, '--cron', 'not a cron'])
    expect(bad.code).to.not.equal(0)
    expect(bad.stderr).to.match(/SM_ERR_SCHEDULE_INVALID|cron/)
    // Another server's schedule is not found under this one.
    const elsewhere = await cliIn(data, ['server', 'schedule', 'edit', 'other', added.id, '--cron', '0 1 * * *'])
    expect([elsewhere.code, elsewhere.stderr.includes('SM_ERR_SCHEDULE_NOT_FOUND')]).to.deep.equal([66, true])

    // The log by server and by who (issue 34 item 6's filters, from the command line too).
    const aboutOther = JSON.parse(await cliInOk(data, ['events', '--server', 'other', '--json']))
    expect(aboutOther.map((e: { type: string }) => e.type)).to.deep.equal(['servers:added'])
    expect(JSON.parse(await cliInOk(data, ['events', '--actor', 'nobody-here', '--json']))).to.deep.equal([])
    const facts = JSON.parse(await cliInOk(data, ['events', '--type', 'servers:schedule_changed', '--json']))
    expect(facts.map((e: { payload: { schedule: { cron: string } } }) => e.payload.schedule.cron)).to.deep.equal([
      '30 5 * * *',
      '30 5 * * *',
    ])
  })
})
