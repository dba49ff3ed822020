import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import * as yazl from 'yazl'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { FAKE_BEDROCK, gameDataDir } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'

/** A zip laid out like Mojang's bedrock-server-<version>.zip, whose bedrock_server is the fake. */
function release(version: string, options: { folder?: string; withoutServer?: boolean } = {}): Promise<string> {
  const file = join(tempDir(), `bedrock-server-${version}.zip`)
  const prefix = options.folder ? `${options.folder}/` : ''
  const zip = new yazl.ZipFile()
  if (!options.withoutServer)
    zip.addBuffer(
      Buffer.from(`#!/bin/sh\nexec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`),
      `${prefix}bedrock_server`,
    )
  zip.addBuffer(Buffer.from(`server-name=Dedicated Server\nlevel-name=Bedrock level\n`), `${prefix}server.properties`)
  zip.addBuffer(Buffer.from(`<html>${version}</html>`), `${prefix}bedrock_server_how_to.html`)
  zip.addBuffer(Buffer.from('[]'), `${prefix}permissions.json`)
  zip.end()
  return new Promise((resolve, reject) =>
    zip.outputStream
      .pipe(createWriteStream(file))
      .on('close', () => resolve(file))
      .on('error', reject),
  )
}

describe('services/servers: install and update from a server zip', function () {
  this.timeout(60_000)

  it('installs a server from a zip that runs, and updates it keeping its config and worlds after a backup', async () => {
    const data = gameDataDir()
    const out = await cliInOk(data, ['server', 'install', 's1', '--from', await release('1.0.0', { folder: 'bds' })])
    const dir = join(data, 'server-files', 's1')
    expect(out).to.include(`installed in ${dir}`)
    expect(JSON.parse(await cliInOk(data, ['server', 'info', 's1', '--json']))).to.include({ profile: 'bedrock', dir })
    await cliInOk(data, ['server', 'properties', 's1', 'level-name', 'Kept World'])
    await cliInOk(data, ['server', 'start', 's1'])
    writeFileSync(join(dir, 'allowlist.json'), '[{"name":"steve"}]')
    const refused = await cliIn(data, ['server', 'update', 's1', '--from', await release('2.0.0')])
    expect(refused.stderr).to.include('[SM_ERR_BACKUP_SERVER_RUNNING]')
    const updated = await cliInOk(data, ['server', 'update', 's1', '--from', await release('2.0.0'), '--stop'])
    expect(updated).to.match(/Backup: world_.*\.mcworld, config_.*\.zip/)
    expect(readFileSync(join(dir, 'bedrock_server_how_to.html'), 'utf8')).to.equal('<html>2.0.0</html>')
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).to.include('level-name=Kept World')
    expect(readFileSync(join(dir, 'allowlist.json'), 'utf8')).to.equal('[{"name":"steve"}]')
    expect(existsSync(join(dir, 'worlds', 'Kept World', 'level.dat'))).to.equal(true)
    expect(JSON.parse(await cliInOk(data, ['server', 'status', 's1', '--json'])).status).to.equal('running')
    const installs = JSON.parse(await cliInOk(data, ['events', '--type', 'after_server_install', '--json']))
    expect(
      installs.map((e: { payload: { mode: string; result: { status: string } } }) => [
        e.payload.mode,
        e.payload.result.status,
      ]),
    ).to.deep.equal([
      ['install', 'success'],
      ['update', 'success'],
    ])
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('refuses sources that are not a Bedrock server, URLs, and taken names, leaving nothing behind', async () => {
    const data = gameDataDir()
    const expectError = async (args: string[], code: string) => {
      const r = await cliIn(data, args)
      expect(r.stderr, args.join(' ')).to.include(`[${code}]`)
      expect(r.code).to.not.equal(0)
    }
    await expectError(
      ['server', 'install', 's1', '--from', await release('1', { withoutServer: true })],
      'SM_ERR_INSTALL_INVALID',
    )
    await expectError(
      ['server', 'install', 's1', '--from', 'https://example.com/bds.zip'],
      'SM_ERR_INSTALL_SOURCE_UNSUPPORTED',
    )
    const junk = join(tempDir(), 'junk.zip')
    writeFileSync(junk, 'not a zip')
    await expectError(['server', 'install', 's1', '--from', junk], 'SM_ERR_INSTALL_INVALID')
    expect(existsSync(join(data, 'server-files', 's1'))).to.equal(false)
    expect(JSON.parse(await cliInOk(data, ['server', 'list', '--json']))).to.deep.equal([])
    await cliInOk(data, ['server', 'install', 's1', '--from', await release('1')])
    await expectError(['server', 'install', 's1', '--from', await release('1')], 'SM_ERR_SERVER_EXISTS')
  })
})
