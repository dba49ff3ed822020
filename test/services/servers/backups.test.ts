import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import * as yauzl from 'yauzl'
import { parseFileList } from '../../../services/servers/backups/hot-backup'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk, managerOn } from '../../helpers/cli-in-process'
import { fakeBedrockDir, gameDataDir, runState, stoppedBedrock } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'
import { writeZip } from '../../helpers/zip'

/** Every file entry of a zip: name → bytes (directory entries, which record modes, left out). */
async function zipContents(file: string): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true })
  const out = new Map<string, Buffer>()
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue
    const stream = await zip.openReadStreamPromise(entry)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    out.set(entry.fileName, Buffer.concat(chunks))
  }
  zip.close()
  return out
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

describe('services/servers: backups and restores', function () {
  this.timeout(60_000)

  it('takes a hot backup of exactly the listed files at the listed lengths without stopping the server, restores those bytes, and keeps exactly N', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const dir = fakeBedrockDir({ level: 'My, World' })
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    await cliInOk(data, ['setting', 'set', 'retention.backups', '2'])
    await cliInOk(data, ['server', 'start', 's1'])
    const pid = runState(data, 's1')?.game?.pid
    await cliInOk(data, ['server', 'send', 's1', 'tick'])
    const out = await cliInOk(data, ['server', 'backup', 's1', '--json'])
    const reply = JSON.parse(out)
    expect(reply.method).to.equal('hot')
    const file = join(data, 'backups', 's1', reply.files[0].file)
    expect(file).to.match(/world_\d{8}-\d{6}-\d{3}\.mcworld$/)

    // The list the server printed after "Files are now ready to be copied."
    const log = readFileSync(RunFiles.of(data, 's1').log, 'utf8').split('\n')
    const listLine = log[log.findIndex((l) => /Files are now ready to be copied/.test(l)) + 1] as string
    const listed = parseFileList(listLine, 'My, World')
    const contents = await zipContents(file)
    expect([...contents.keys()].sort()).to.deep.equal(listed.map((f) => f.path.slice('My, World/'.length)).sort())
    for (const { path, length } of listed)
      expect(contents.get(path.slice('My, World/'.length))?.length, path).to.equal(length)
    // The server wrote past the listed lengths while it was held; the archive did not take that.
    const worldLog = join(dir, 'worlds', 'My, World', 'db', '000003.log')
    const listedLog = listed.find((f) => f.path.endsWith('db/000003.log'))?.length as number
    expect(statSync(worldLog).size).to.be.greaterThan(listedLog)
    expect(log.some((l) => /Changes to the world are resumed\./.test(l))).to.equal(true)
    // Never stopped: the same process, and no status change since it started.
    expect(runState(data, 's1')?.game?.pid).to.equal(pid)
    const changes = JSON.parse(await cliInOk(data, ['events', '--type', 'after_server_status_change', '--json'])).map(
      (e: { payload: { status: string } }) => e.payload.status,
    )
    expect(changes).to.deep.equal(['starting', 'running'])

    // Restore (stopping and starting it again) brings back exactly those bytes.
    await cliInOk(data, ['server', 'send', 's1', 'tick'])
    const restored = await cliInOk(data, ['server', 'restore', 's1', reply.files[0].file, '--stop'])
    expect(restored).to.match(/_pre-restore\.mcworld/)
    const world = join(dir, 'worlds', 'My, World')
    for (const [name, bytes] of contents) expect(sha(readFileSync(join(world, name))), name).to.equal(sha(bytes))
    expect(JSON.parse(await cliInOk(data, ['server', 'status', 's1', '--json'])).status).to.equal('running')

    // Retention: two more backups leave exactly two world backups, and the restore's safety copy
    // apart (it never pushes out a backup: issue 20).
    await cliInOk(data, ['server', 'backup', 's1'])
    await cliInOk(data, ['server', 'backup', 's1'])
    const worlds = readdirSync(join(data, 'backups', 's1')).filter((f) => f.startsWith('world_'))
    expect(worlds.filter((f) => !f.includes('_pre-'))).to.have.length(2)
    expect(worlds.filter((f) => f.includes('_pre-restore'))).to.have.length(1)
    expect(worlds).to.have.length(3)
    // Listed in columns that line up, whatever the lengths of the names (issue 20).
    const lines = (await cliInOk(data, ['server', 'backups', 's1'])).trimEnd().split('\n')
    expect(lines[0]).to.match(/^FILE +KIND +SIZE +CREATED$/)
    const kindAt = lines[0]?.indexOf('KIND')
    for (const line of lines.slice(1))
      expect(line.indexOf(line.includes(' world ') ? ' world ' : ' config ') + 1, line).to.equal(kindAt)
    const sizeEnds = lines.map((line) => /\S+ +\S+ +(\S+ \S+|SIZE)/.exec(line)?.[0].length)
    expect(new Set(sizeEnds).size, lines.join('\n')).to.equal(1)
    const listedBackups = JSON.parse(await cliInOk(data, ['server', 'backups', 's1', '--json']))
    expect(listedBackups.map((b: { file: string }) => b.file)).to.deep.equal([...worlds].sort().reverse())
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('backs up a stopped server cold, config too, and restores the config', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const { dir } = await stoppedBedrock(data)
    writeFileSync(join(dir, 'allowlist.json'), '[]')
    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 's1', '--type', 'all', '--json']))
    expect(reply.method).to.equal('cold')
    expect(reply.files.map((f: { kind: string }) => f.kind)).to.deep.equal(['world', 'config'])
    const config = reply.files[1].file
    expect([...(await zipContents(join(data, 'backups', 's1', config))).keys()].sort()).to.deep.equal([
      'allowlist.json',
      'server.properties',
    ])
    writeFileSync(join(dir, 'allowlist.json'), '[{"name":"changed"}]')
    await cliInOk(data, ['server', 'restore', 's1', config])
    expect(readFileSync(join(dir, 'allowlist.json'), 'utf8')).to.equal('[]')

    // Export the world and import it back over a changed one.
    const exported = join(tempDir(), 'copy.mcworld')
    await cliInOk(data, ['server', 'export', 's1', exported])
    const level = join(dir, 'worlds', 'Bedrock level', 'level.dat')
    const original = readFileSync(level)
    writeFileSync(level, 'changed')
    expect((await cliIn(data, ['server', 'export', 's1', exported])).stderr).to.include('[SM_ERR_BACKUP_EXISTS]')
    expect(await cliInOk(data, ['server', 'import', 's1', exported])).to.match(/_pre-import\.mcworld/)
    expect(sha(readFileSync(level))).to.equal(sha(original))
  })

  it('refuses bad archives and unsafe entries with coded errors, and changes nothing', async () => {
    const data = gameDataDir()
    await managerOn(data)
    const { dir, world } = await stoppedBedrock(data)
    const before = sha(readFileSync(join(world, 'level.dat')))
    const expectError = async (args: string[], code: string) => {
      const r = await cliIn(data, args)
      expect(r.stderr, args.join(' ')).to.include(`[${code}]`)
      expect(r.code, args.join(' ')).to.not.equal(0)
    }
    const scratch = tempDir()
    writeFileSync(join(scratch, 'junk.mcworld'), 'this is not a zip')
    await expectError(['server', 'import', 's1', join(scratch, 'junk.mcworld')], 'SM_ERR_BACKUP_INVALID')
    await writeZip(join(scratch, 'notworld.mcworld'), { 'readme.txt': 'hello' })
    await expectError(['server', 'import', 's1', join(scratch, 'notworld.mcworld')], 'SM_ERR_BACKUP_INVALID')
    // An entry named ../evil.txt (yazl refuses to write one, so the name is patched in place).
    await writeZip(join(scratch, 'evil.mcworld'), { 'level.dat': 'x', 'ab/evil.txt': 'owned' })
    const bytes = readFileSync(join(scratch, 'evil.mcworld'))
    writeFileSync(
      join(scratch, 'evil.mcworld'),
      Buffer.from(bytes.toString('latin1').replaceAll('ab/evil.txt', '../evil.txt'), 'latin1'),
    )
    await expectError(['server', 'import', 's1', join(scratch, 'evil.mcworld')], 'SM_ERR_BACKUP_UNSAFE_ENTRY')
    expect(existsSync(join(dir, 'worlds', 'evil.txt'))).to.equal(false)
    await expectError(['server', 'restore', 's1', '../../etc/passwd'], 'SM_ERR_BACKUP_NOT_FOUND')
    await expectError(['server', 'restore', 's1', 'world_20260101-000000-000.mcworld'], 'SM_ERR_BACKUP_NOT_FOUND')
    await expectError(['server', 'backup', 'nope'], 'SM_ERR_SERVER_NOT_FOUND')
    expect(sha(readFileSync(join(world, 'level.dat')))).to.equal(before)
    // A restore of a running server needs --stop.
    await cliInOk(data, ['server', 'backup', 's1'])
    const [backup] = JSON.parse(await cliInOk(data, ['server', 'backups', 's1', '--json']))
    await cliInOk(data, ['server', 'start', 's1'])
    await expectError(['server', 'restore', 's1', backup.file], 'SM_ERR_BACKUP_SERVER_RUNNING')
    await cliInOk(data, ['server', 'stop', 's1'])
  })

  it('parses a save query list with commas in names and refuses paths outside the world', () => {
    expect(parseFileList('a, b/db/1.ldb:5, a, b/CURRENT:16', 'a, b')).to.deep.equal([
      { path: 'a, b/db/1.ldb', length: 5 },
      { path: 'a, b/CURRENT', length: 16 },
    ])
    expect(() => parseFileList('w/../../etc/passwd:5', 'w')).to.throw(/not inside the world/)
    expect(() => parseFileList('other/db:5', 'w')).to.throw(/not inside the world/)
    expect(() => parseFileList('w/db/1.ldb:5, w/trailing', 'w')).to.throw(/not 'path:length'/)
  })
})
