import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { gameDataDir, statusJson } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'

/** A generic console server `g1` with a world directory and no config file (no server.properties). */
async function genericServer(data: string): Promise<string> {
  const dir = join(tempDir(), 'lobby')
  mkdirSync(join(dir, 'world', 'region'), { recursive: true })
  writeFileSync(join(dir, 'world', 'level.dat'), 'level')
  writeFileSync(join(dir, 'world', 'region', 'r.0.0.mca'), Buffer.alloc(4096, 1))
  writeFileSync(
    join(dir, 'run.sh'),
    '#!/bin/sh\nwhile read -r line; do [ "$line" = quit ] && exit 0; echo "got $line"; done\n',
    { mode: 0o755 },
  )
  await cliInOk(data, [
    'server',
    'add',
    'g1',
    '--dir',
    dir,
    '--command',
    './run.sh',
    '--stop-command',
    'quit',
    '--world-dir',
    'world',
    '--config',
    'server.properties',
  ])
  return dir
}

const archives = (data: string) => {
  const folder = join(data, 'backups', 'g1')
  return existsSync(folder) ? readdirSync(folder).sort() : []
}

describe('services/servers: what a backup writes, skips and keeps', function () {
  this.timeout(60_000)

  it('backs up everything a server has with --type all (a missing config is skipped and said), applies retention each time, and a config backup of nothing writes nothing', async () => {
    const data = gameDataDir()
    await genericServer(data)
    await cliInOk(data, ['setting', 'set', 'retention.backups', '3'])

    const config = await cliIn(data, ['server', 'backup', 'g1', '--type', 'config'])
    expect(config.code, config.stderr).to.equal(66)
    expect(config.stderr).to.include('[SM_ERR_BACKUP_NOTHING]').and.include('server.properties')
    expect(archives(data)).to.deep.equal([])

    const replies = []
    for (let i = 0; i < 4; i++)
      replies.push(JSON.parse(await cliInOk(data, ['server', 'backup', 'g1', '--type', 'all', '--json'])))
    for (const reply of replies) {
      expect(reply.method).to.equal('cold')
      expect(reply.files.map((f: { kind: string }) => f.kind)).to.deep.equal(['world'])
      expect(reply.skipped).to.have.length(1)
      expect(reply.skipped[0].kind).to.equal('config')
      expect(reply.skipped[0].reason).to.include("'g1' has no config files (server.properties)")
    }
    expect(replies.slice(0, 3).map((r) => r.pruned)).to.deep.equal([[], [], []])
    expect(replies[3].pruned).to.deep.equal([replies[0].files[0].file])
    expect(archives(data)).to.deep.equal(replies.slice(1).map((r) => r.files[0].file))

    // Said on the command line too; a fifth keeps three.
    const printed = await cliInOk(data, ['server', 'backup', 'g1', '--type', 'all'])
    expect(printed).to.match(/^world_\d{8}-\d{6}-\d{3}\.zip {2}.* \(cold\)$/m)
    expect(printed).to.include("skipped the config backup: the server 'g1' has no config files (server.properties)")
    expect(printed).to.include(`removed by retention: ${replies[1].files[0].file}`)
    expect(archives(data)).to.have.length(3)
  })

  it('a backup that fails on one part writes nothing, and one with nothing at all is refused before anything is written', async () => {
    const data = gameDataDir()
    const dir = await genericServer(data)
    await cliInOk(data, ['server', 'backup', 'g1', '--type', 'all'])
    const before = archives(data)
    expect(before).to.have.length(1)

    // A config "file" that cannot be read (a directory): the world part was written, then removed.
    mkdirSync(join(dir, 'server.properties'))
    const failed = await cliIn(data, ['server', 'backup', 'g1', '--type', 'all'])
    expect(failed.code, failed.stderr).to.equal(74)
    expect(failed.stderr).to.include('[SM_ERR_BACKUP_FAILED]').and.include('config backup')
    expect(archives(data)).to.deep.equal(before)

    // Neither a world nor a config file: refused, naming both.
    rmSync(join(dir, 'server.properties'), { recursive: true })
    rmSync(join(dir, 'world'), { recursive: true })
    const nothing = await cliIn(data, ['server', 'backup', 'g1', '--type', 'all'])
    expect(nothing.code, nothing.stderr).to.equal(66)
    expect(nothing.stderr)
      .to.include('[SM_ERR_BACKUP_NOTHING]')
      .and.include('world directory')
      .and.include('config files')
    expect(archives(data)).to.deep.equal(before)
  })

  it('a running generic server is stopped, backed up (skipping what it lacks) and started again', async () => {
    const data = gameDataDir()
    await genericServer(data)
    await cliInOk(data, ['server', 'start', 'g1'])
    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 'g1', '--type', 'all', '--json']))
    expect(reply.method).to.equal('stop-start')
    expect(reply.files.map((f: { kind: string }) => f.kind)).to.deep.equal(['world'])
    expect(reply.skipped.map((s: { kind: string }) => s.kind)).to.deep.equal(['config'])
    expect((await statusJson(data, 'g1')).status).to.equal('running')

    // Nothing to back up: refused without stopping it (the same process runs on).
    const pid = (await statusJson(data, 'g1')).pid
    const config = await cliIn(data, ['server', 'backup', 'g1', '--type', 'config'])
    expect(config.code, config.stderr).to.equal(66)
    expect((await statusJson(data, 'g1')).pid).to.equal(pid)
    await cliInOk(data, ['server', 'stop', 'g1'])
  })
})
