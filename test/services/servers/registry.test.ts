import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { withManager } from '../../helpers/manager'
import { plugin, withPlugins } from '../../helpers/plugins'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

const PROPERTIES = [
  '# Bedrock Dedicated Server properties',
  'server-name=Dedicated Server',
  '# Allowed values: "survival", "creative", or "adventure"',
  'gamemode=survival',
  'max-players=10',
  'server-port=19132',
  'level-name=Bedrock level',
  'custom-key=kept',
  '',
].join('\n')

/** A directory that looks like an unpacked Bedrock Dedicated Server. */
function bedrockDir(): string {
  const dir = join(tempDir(), 'bds')
  mkdirSync(join(dir, 'worlds', 'Bedrock level'), { recursive: true })
  writeFileSync(join(dir, 'bedrock_server'), '#!/bin/sh\n', { mode: 0o755 })
  writeFileSync(join(dir, 'server.properties'), PROPERTIES)
  return dir
}

describe('services/servers: the registry and server.properties', () => {
  it('adopts a bedrock directory and a generic one, lists and describes them, and survives a rebuild', () =>
    withManager(async ({ bus }) => {
      const bds = bedrockDir()
      const survival = await bus.request('servers:add', { name: 'survival', dir: bds })
      expect(survival).to.include({ profile: 'bedrock', command: './bedrock_server', stopCommand: 'stop', dir: bds })
      const generic = join(tempDir(), 'lobby')
      mkdirSync(generic)
      await bus.request('servers:add', {
        name: 'lobby',
        dir: generic,
        command: './run.sh',
        args: ['--nogui'],
        env: { JAVA_OPTS: '-Xmx1G' },
        worldDir: 'world',
      })
      expect((await bus.request('servers:list', {})).map((s) => s.name)).to.deep.equal(['lobby', 'survival'])
      const info = await bus.request('servers:info', { name: 'survival' })
      expect(info).to.include({ world: join(bds, 'worlds', 'Bedrock level'), dirExists: true })
      expect((await bus.request('servers:info', { name: 'lobby' })).world).to.equal(join(generic, 'world'))
      await bus.request('events:rebuild', {})
      expect((await bus.request('servers:list', {})).map((s) => s.name)).to.deep.equal(['lobby', 'survival'])
      expect((await bus.request('events:check', {})).drifted).to.deep.equal([])
    }))

  it('refuses bad additions with coded errors and records nothing', () =>
    withManager(async ({ bus }) => {
      const bds = bedrockDir()
      const plain = tempDir()
      writeFileSync(join(plain, 'file'), '')
      const cases: [Parameters<typeof bus.request<'servers:add'>>[1], string][] = [
        [{ name: 'bad name', dir: bds }, 'SM_ERR_SERVER_INVALID_NAME'],
        [{ name: 's', dir: join(plain, 'nope') }, 'SM_ERR_SERVER_DIR_UNUSABLE'],
        [{ name: 's', dir: join(plain, 'file') }, 'SM_ERR_SERVER_DIR_UNUSABLE'],
        [{ name: 's', dir: plain }, 'SM_ERR_SERVER_NO_COMMAND'],
        [{ name: 's', dir: bds, worldDir: '../../elsewhere' }, 'SM_ERR_SERVER_DIR_UNUSABLE'],
      ]
      for (const [request, code] of cases)
        expect((await rejection(bus.request('servers:add', request))).code, JSON.stringify(request)).to.equal(code)
      expect(await bus.request('events:read', { types: ['servers:added'] })).to.deep.equal([])
      await bus.request('servers:add', { name: 'one', dir: bds })
      expect((await rejection(bus.request('servers:add', { name: 'one', dir: plain, command: 'x' }))).code).to.equal(
        'SM_ERR_SERVER_EXISTS',
      )
      expect((await rejection(bus.request('servers:add', { name: 'two', dir: bds }))).message).to.contain(
        "already the server 'one'",
      )
      const missing = await rejection(bus.request('servers:info', { name: 'onw' }))
      expect(missing.code).to.equal('SM_ERR_SERVER_NOT_FOUND')
      expect(missing.message).to.contain("Did you mean 'one'?")
    }))

  it('changes server.properties as a vetoable action, keeping comments, order and unknown keys', async () => {
    const veto = `beforePropertiesChange({ properties }: any) {
    if (properties['max-players'] === '666') return { cancel: true, reason: 'no' } as const
    return undefined
  }`
    await withPlugins({ 'guard.ts': plugin('Guard', veto) }, { enable: ['guard'] }, async ({ manager }) => {
      const { bus } = manager
      const bds = bedrockDir()
      await bus.request('servers:add', { name: 's1', dir: bds })
      const { changed } = await bus.request('servers:set_properties', {
        name: 's1',
        properties: { 'max-players': '20', 'level-seed': '42' },
      })
      expect(changed).to.deep.equal({
        'max-players': { from: '10', to: '20' },
        'level-seed': { from: undefined, to: '42' },
      })
      expect(readFileSync(join(bds, 'server.properties'), 'utf8')).to.equal(
        PROPERTIES.replace('max-players=10', 'max-players=20').replace(
          'custom-key=kept\n',
          'custom-key=kept\nlevel-seed=42\n',
        ),
      )
      const bad: [string, string, string][] = [
        ['max-players', 'many', 'whole number'],
        ['gamemode', 'hardcore', 'survival, creative, adventure'],
        ['server-prot', '1', "did you mean 'server-port'?"],
        ['level-name', '../escape', 'folder name'],
      ]
      for (const [key, value, reason] of bad) {
        const error = await rejection(
          bus.request('servers:set_properties', { name: 's1', properties: { [key]: value } }),
        )
        expect(error.code, key).to.equal('SM_ERR_SERVER_PROPERTY_INVALID')
        expect(error.message).to.contain(reason)
      }
      expect(
        (await bus.request('servers:set_properties', { name: 's1', properties: { 'custom-key': 'changed' } })).changed,
      ).to.have.property('custom-key')
      // Every key sent, one edited (what the web form sends): one change, not all of them (issue 20).
      const all = await bus.request('servers:properties', { name: 's1' })
      const edited = await bus.request('servers:set_properties', {
        name: 's1',
        properties: { ...all, 'custom-key': 'again' },
      })
      expect(edited.changed).to.deep.equal({ 'custom-key': { from: 'changed', to: 'again' } })
      const vetoed = await rejection(
        bus.request('servers:set_properties', { name: 's1', properties: { 'max-players': '666' } }),
      )
      expect(vetoed.code).to.equal('SM_ERR_SERVER_CHANGE_CANCELLED')
      expect((await bus.request('servers:properties', { name: 's1' }))['max-players']).to.equal('20')
      const facts = await bus.request('events:read', { types: ['after_properties_change'] })
      expect(facts.map((f) => (f.payload as { result: { status: string } }).result.status)).to.deep.equal([
        'success',
        'success',
        'success',
        'cancelled',
      ])
    })
  })

  it('removes a server, keeping its files unless asked, and deletes them as the delete_server_data action', () =>
    withManager(async ({ bus }) => {
      const keep = bedrockDir()
      await bus.request('servers:add', { name: 'keep', dir: keep })
      expect((await bus.request('servers:remove', { name: 'keep' })).message).to.contain('its files stay')
      expect(existsSync(keep)).to.equal(true)
      const gone = bedrockDir()
      await bus.request('servers:add', { name: 'gone', dir: gone })
      await bus.request('servers:remove', { name: 'gone', deleteFiles: true })
      expect(existsSync(gone)).to.equal(false)
      expect(await bus.request('servers:list', {})).to.deep.equal([])
      const [fact] = await bus.request('events:read', { types: ['after_delete_server_data'] })
      expect(fact?.payload).to.deep.include({ serverName: 'gone', dir: gone })
    }))

  it('works from the command line, asking for --yes before deleting files where nobody can confirm', async () => {
    const dir = tempDir()
    const bds = bedrockDir()
    expect((await cliIn(dir, ['server', 'add', 'survival', '--dir', bds])).stdout).to.equal(
      `Server 'survival' added: bedrock server in ${bds}.\n`,
    )
    expect((await cliIn(dir, ['server', 'list'])).stdout).to.match(/survival\s+bedrock\s+stopped\s+-\s+\//)
    expect((await cliIn(dir, ['server', 'properties', 'survival', 'max-players', '12'])).stdout).to.equal(
      'max-players = 12 (was 10)\n',
    )
    expect((await cliIn(dir, ['server', 'properties', 'survival', 'max-players'])).stdout).to.equal('12\n')
    const unknown = await cliIn(dir, ['server', 'info', 'survivl'])
    expect(unknown.code).to.equal(66)
    expect(unknown.stderr).to.contain(
      "Error [SM_ERR_SERVER_NOT_FOUND]: No server is named 'survivl'. Did you mean 'survival'?",
    )
    const unconfirmed = await cliIn(dir, ['server', 'remove', 'survival', '--delete-files'])
    expect(unconfirmed.code).to.equal(77)
    expect(unconfirmed.stderr).to.contain('add --yes')
    expect(existsSync(bds)).to.equal(true)
    expect((await cliIn(dir, ['server', 'remove', 'survival', '--delete-files', '--yes'])).code).to.equal(0)
    expect(existsSync(bds)).to.equal(false)
  })
})
