import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { factsOf, managerEvent } from '../../helpers/facts'
import { fakeBedrockDir, fakeJavaDir, gameDataDir } from '../../helpers/game'
import { plugin, writePlugins } from '../../helpers/plugins'
import { makeReadOnly } from '../../helpers/read-only'
import { tempDir } from '../../helpers/temp-dir'

const NOTCH = '069a79f4-44e9-4726-a5be-fca90e38aaf5'

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'))
const payloads = async (dataDir: string, type: string) =>
  (await factsOf(dataDir, type)).map((e) => e.payload as Record<string, unknown> & { result: Record<string, unknown> })

/** Expects the command to fail with `code` and its exit code; its stderr. */
async function refused(dataDir: string, args: string[], code: string, exit: number): Promise<string> {
  const r = await cliIn(dataDir, args)
  expect(r.stderr, r.stdout).to.contain(`[${code}]`)
  expect(r.code, r.stderr).to.equal(exit)
  return r.stderr
}

describe('services/servers: the allowlist and operators (issue 20, item 3)', function () {
  this.timeout(120_000)

  it('bedrock: a running server is changed by its console (each a command_send fact), a stopped one by editing its file whole', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = fakeBedrockDir()
    const allowlist = join(dir, 'allowlist.json')
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    await cliInOk(data, ['server', 'start', 's1'])

    expect(await cliInOk(data, ['server', 'allowlist', 's1', 'add', 'Steve'])).to.equal(
      "'Steve' added to the allowlist of 's1' (by its console).\n",
    )
    expect(await cliInOk(data, ['server', 'allowlist', 's1', 'add', 'Steve'])).to.equal(
      "'Steve' was already on the allowlist of 's1' (by its console).\n",
    )
    const spaced = JSON.parse(await cliInOk(data, ['server', 'allowlist', 's1', 'add', 'Sneezy Puma', '--json']))
    expect(spaced).to.deep.include({ changed: true, via: 'console' })
    expect(spaced.players).to.deep.equal([{ name: 'Steve' }, { name: 'Sneezy Puma' }])
    // The game wrote its own file.
    expect(readJson(allowlist)).to.deep.equal([
      { ignoresPlayerLimit: false, name: 'Steve' },
      { ignoresPlayerLimit: false, name: 'Sneezy Puma' },
    ])
    expect(await cliInOk(data, ['server', 'allowlist', 's1', 'remove', 'Steve'])).to.equal(
      "'Steve' removed from the allowlist of 's1' (by its console).\n",
    )
    const sent = (await payloads(data, 'after_command_send')).map((p) => [p.command, p.result.status])
    expect(sent).to.deep.equal([
      ['allowlist add Steve', 'success'],
      ['allowlist add Steve', 'success'],
      ['allowlist add "Sneezy Puma"', 'success'],
      ['allowlist remove Steve', 'success'],
    ])
    const changes = (await payloads(data, 'after_allowlist_change')).map((p) => [
      p.change,
      p.player,
      p.result.status,
      p.result.via,
      p.result.changed,
    ])
    expect(changes).to.deep.equal([
      ['add', 'Steve', 'success', 'console', true],
      ['add', 'Steve', 'success', 'console', false],
      ['add', 'Sneezy Puma', 'success', 'console', true],
      ['remove', 'Steve', 'success', 'console', true],
    ])

    await cliInOk(data, ['server', 'stop', 's1'])
    const before = statSync(allowlist).ino
    expect(await cliInOk(data, ['server', 'allowlist', 's1', 'add', 'Alex'])).to.equal(
      "'Alex' added to the allowlist of 's1'; allowlist.json is read when it starts.\n",
    )
    expect(readJson(allowlist)).to.deep.equal([
      { ignoresPlayerLimit: false, name: 'Sneezy Puma' },
      { name: 'Alex', ignoresPlayerLimit: false },
    ])
    // Written whole to a temporary file and renamed over it: a new file, nothing left beside it.
    expect(statSync(allowlist).ino).not.to.equal(before)
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).to.deep.equal([])
    expect(await cliInOk(data, ['server', 'allowlist', 's1', 'remove', 'sneezy puma'])).to.equal(
      "'sneezy puma' removed from the allowlist of 's1'; allowlist.json is read when it starts.\n",
    )
    expect(await cliInOk(data, ['server', 'allowlist', 's1'])).to.equal('NAME  ID\nAlex  -\n')
    expect((await payloads(data, 'after_allowlist_change')).slice(-2).map((p) => p.result.via)).to.deep.equal([
      'file',
      'file',
    ])
    expect((await payloads(data, 'after_command_send')).length).to.equal(4)

    // permissions.json has only xuids: a player never seen joining cannot be made an operator.
    const unknown = await refused(data, ['server', 'ops', 's1', 'add', 'Steve'], 'SM_ERR_SERVER_PLAYER_ID_UNKNOWN', 75)
    expect(unknown).to.contain("Let 'Steve' join the server once")
    expect(existsSync(join(dir, 'permissions.json'))).to.equal(false)
    expect(await payloads(data, 'after_operator_change')).to.deep.equal([])

    // A file that is not a list of players is refused, and left as it was.
    writeFileSync(allowlist, '{"not": "a list"}')
    await refused(data, ['server', 'allowlist', 's1'], 'SM_ERR_SERVER_ACCESS_FILE_INVALID', 65)
    await refused(data, ['server', 'allowlist', 's1', 'add', 'Alex'], 'SM_ERR_SERVER_ACCESS_FILE_INVALID', 65)
    expect(readFileSync(allowlist, 'utf8')).to.equal('{"not": "a list"}')
  })

  it('bedrock operators: permissions.json is edited with the xuid from the player history, and a running game told to reload it', async () => {
    const data = gameDataDir()
    const manager = await managerOn(data)
    const dir = fakeBedrockDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    await cliInOk(data, ['server', 'start', 's1'])
    await managerEvent<{ name: string }>(
      data,
      'after_player_join',
      (p) => p.name === 'Steve',
      () => cliInOk(data, ['server', 'send', 's1', 'fakejoin', 'Steve', '2535412345678901']),
    )
    expect(await cliInOk(data, ['server', 'ops', 's1', 'add', 'Steve'])).to.equal(
      "'Steve' is now an operator of 's1'; permissions.json reloaded ('permission reload').\n",
    )
    expect(readJson(join(dir, 'permissions.json'))).to.deep.equal([
      { xuid: '2535412345678901', permission: 'operator' },
    ])
    expect(readFileSync(join(data, 'servers', 's1', 'console.log'), 'utf8')).to.contain(
      'Permissions reloaded: 1 operators',
    )
    // Listed by name: the file has the xuid, the history the name.
    expect(await cliInOk(data, ['server', 'ops', 's1'])).to.equal('NAME   ID\nSteve  2535412345678901\n')
    expect(await cliInOk(data, ['server', 'ops', 's1', 'remove', 'Steve'])).to.equal(
      "'Steve' is no longer an operator of 's1'; permissions.json reloaded ('permission reload').\n",
    )
    expect(readJson(join(dir, 'permissions.json'))).to.deep.equal([])
    expect(
      (await payloads(data, 'after_command_send')).filter((p) => p.command === 'permission reload').length,
    ).to.equal(2)
    expect((await payloads(data, 'after_operator_change')).map((p) => [p.change, p.result.via])).to.deep.equal([
      ['add', 'file'],
      ['remove', 'file'],
    ])
    await cliInOk(data, ['server', 'stop', 's1'])
    await manager.stop()
  })

  it('java: a stopped server gets the UUID from the player history, a never-seen player is refused, a running one is told by its console', async () => {
    const data = gameDataDir()
    const manager = await managerOn(data)
    const { dir, java } = fakeJavaDir({ eula: true })
    await cliInOk(data, ['server', 'add', 'j1', '--dir', dir, '--command', java])
    await cliInOk(data, ['server', 'start', 'j1'])
    await managerEvent<{ name: string }>(
      data,
      'after_player_join',
      (p) => p.name === 'Notch',
      () => cliInOk(data, ['server', 'send', 'j1', 'fakejoin', 'Notch', NOTCH]),
    )
    await cliInOk(data, ['server', 'stop', 'j1'])

    expect(await cliInOk(data, ['server', 'ops', 'j1', 'add', 'notch'])).to.equal(
      "'Notch' is now an operator of 'j1'; ops.json is read when it starts.\n",
    )
    expect(readJson(join(dir, 'ops.json'))).to.deep.equal([
      { uuid: NOTCH, name: 'Notch', level: 4, bypassesPlayerLimit: false },
    ])
    await cliInOk(data, ['server', 'allowlist', 'j1', 'add', 'Notch'])
    expect(readJson(join(dir, 'whitelist.json'))).to.deep.equal([{ uuid: NOTCH, name: 'Notch' }])
    const never = await refused(
      data,
      ['server', 'ops', 'j1', 'add', 'Herobrine'],
      'SM_ERR_SERVER_PLAYER_ID_UNKNOWN',
      75,
    )
    expect(never).to.contain('ops.json names players by uuid')
    expect(never).to.contain('or do it while the server runs')
    expect(readJson(join(dir, 'ops.json'))).to.have.length(1)

    // Running: the game's console, which looks the name up (a player it never saw does not exist for it).
    await cliInOk(data, ['server', 'start', 'j1'])
    expect(await cliInOk(data, ['server', 'ops', 'j1', 'remove', 'Notch'])).to.equal(
      "'Notch' is no longer an operator of 'j1' (by its console).\n",
    )
    expect(readJson(join(dir, 'ops.json'))).to.deep.equal([])
    expect(await cliInOk(data, ['server', 'ops', 'j1', 'remove', 'Notch'])).to.equal(
      "'Notch' was not an operator of 'j1' (by its console).\n",
    )
    const game = await refused(
      data,
      ['server', 'allowlist', 'j1', 'add', 'Herobrine'],
      'SM_ERR_SERVER_ACCESS_REFUSED',
      65,
    )
    expect(game).to.contain('"That player does not exist"')
    const last = (await payloads(data, 'after_allowlist_change')).at(-1)
    expect(last).to.deep.include({ change: 'add', player: 'Herobrine' })
    expect(last?.result).to.deep.include({ status: 'error', code: 'SM_ERR_SERVER_ACCESS_REFUSED' })
    expect((await payloads(data, 'after_command_send')).at(-1)).to.deep.include({
      command: 'whitelist add Herobrine',
    })
    await cliInOk(data, ['server', 'stop', 'j1'])
    await manager.stop()
  })

  it('refuses a generic server (its profile knows no list) and a name that cannot be a player', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = join(tempDir(), 'generic')
    mkdirSync(dir)
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nwhile read -r line; do echo "got $line"; done\n', { mode: 0o755 })
    await cliInOk(data, ['server', 'add', 'g1', '--dir', dir, '--command', './run.sh'])
    const none = await refused(data, ['server', 'allowlist', 'g1'], 'SM_ERR_SERVER_ACCESS_UNKNOWN', 69)
    expect(none).to.contain("The server 'g1' (profile generic) has no allowlist")
    await refused(data, ['server', 'ops', 'g1', 'add', 'Steve'], 'SM_ERR_SERVER_ACCESS_UNKNOWN', 69)
    await cliInOk(data, ['server', 'add', 's1', '--dir', fakeBedrockDir()])
    await refused(data, ['server', 'allowlist', 's1', 'add', 'a"b'], 'SM_ERR_SERVER_PLAYER_INVALID', 64)
    await refused(data, ['server', 'allowlist', 's1', 'add'], 'SM_ERR_CLI_MISSING_ARGUMENT', 64)
  })

  it('lets a plugin veto a change: nothing is changed, and the veto is the fact', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = fakeBedrockDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    writePlugins(data, {
      'gatekeeper.ts': plugin(
        'Gatekeeper',
        `beforeAllowlistChange(p) { if (p.player === 'Griefer') return { cancel: true, reason: 'not on this server' } }`,
      ),
    })
    await cliInOk(data, ['plugin', 'enable', 'gatekeeper'])
    const vetoed = await refused(
      data,
      ['server', 'allowlist', 's1', 'add', 'Griefer'],
      'SM_ERR_SERVER_CHANGE_CANCELLED',
      1,
    )
    expect(vetoed).to.contain("cancelled by 'plugin:gatekeeper': not on this server")
    expect(existsSync(join(dir, 'allowlist.json'))).to.equal(false)
    await cliInOk(data, ['server', 'allowlist', 's1', 'add', 'Steve'])
    expect(readJson(join(dir, 'allowlist.json'))).to.deep.equal([{ name: 'Steve', ignoresPlayerLimit: false }])
    expect((await payloads(data, 'after_allowlist_change')).map((p) => [p.player, p.result.status])).to.deep.equal([
      ['Griefer', 'cancelled'],
      ['Steve', 'success'],
    ])
  })

  it("refuses with a code that says what to do a file it cannot write (the server's folder read-only), leaving nothing behind", async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = fakeBedrockDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    const undo = makeReadOnly(dir)
    try {
      const denied = await refused(
        data,
        ['server', 'allowlist', 's1', 'add', 'Steve'],
        'SM_ERR_SERVER_ACCESS_FILE_UNWRITABLE',
        74,
      )
      expect(denied).to.contain(`allowlist.json of 's1' cannot be written`)
      expect(denied).to.contain('write access')
    } finally {
      undo()
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('allowlist.json'))).to.deep.equal([])
    expect((await payloads(data, 'after_allowlist_change')).map((p) => p.result.code)).to.deep.equal([
      'SM_ERR_SERVER_ACCESS_FILE_UNWRITABLE',
    ])
  })
})
