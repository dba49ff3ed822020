import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { gameDataDir, stoppedBedrock } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'
import { writeZip } from '../../helpers/zip'

/** Every entry under `dir` (and `dir` itself as '.'): its permission bits, in octal. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': (statSync(dir).mode & 0o7777).toString(8) }
  const walk = (at: string) => {
    for (const item of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, item.name)
      out[relative(dir, path)] = (statSync(path).mode & 0o7777).toString(8)
      if (item.isDirectory()) walk(path)
    }
  }
  walk(dir)
  return out
}

/**
 * The zip with every central directory header saying it was made on MS-DOS (`version made by`'s
 * upper byte 0) with no external attributes: no Unix mode recorded, as Windows archivers write.
 */
function madeOnDos(zip: Buffer): Buffer {
  const out = Buffer.from(zip)
  for (let at = out.indexOf(CENTRAL_HEADER); at !== -1; at = out.indexOf(CENTRAL_HEADER, at + 4)) {
    out.writeUInt8(0, at + 5)
    out.writeUInt32LE(0, at + 38)
  }
  return out
}

const CENTRAL_HEADER = Buffer.from([0x50, 0x4b, 0x01, 0x02])

/** Sets every directory under `dir` (and `dir`) to `dirs`, every file to `files`. */
function chmodTree(dir: string, dirs: number, files: number): void {
  chmodSync(dir, dirs)
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name)
    if (item.isDirectory()) chmodTree(path, dirs, files)
    else chmodSync(path, files)
  }
}

describe("services/servers: a restore or an import keeps the world's file modes (issue 32, item 4)", function () {
  this.timeout(90_000)

  it('backs up 0755 directories and 0644 files and puts them back so, by a restore and an import; setuid and others-write are not put back; the archives stay private', async () => {
    const data = gameDataDir()
    const { dir, world } = await stoppedBedrock(data)
    // The game wrote its world under the manager's private umask: made as an admin would have it.
    chmodTree(world, 0o755, 0o644)
    chmodSync(join(dir, 'server.properties'), 0o640)
    mkdirSync(join(world, 'private'))
    chmodSync(join(world, 'private'), 0o750)
    writeFileSync(join(world, 'private', 'notes.txt'), 'notes')
    chmodSync(join(world, 'private', 'notes.txt'), 0o640)
    writeFileSync(join(world, 'tool.sh'), '#!/bin/sh\n')
    chmodSync(join(world, 'tool.sh'), 0o4777)
    const before = modes(world)
    expect(before).to.deep.include({ '.': '755', db: '755', 'level.dat': '644', 'tool.sh': '4777' })
    // What a restore gives back: the same, without setuid and others' write.
    const kept = { ...before, 'tool.sh': '775' }

    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 's1', '--type', 'all', '--json']))
    const [worldBackup, configBackup] = reply.files.map((f: { file: string }) => join(data, 'backups', 's1', f.file))
    for (const archive of [worldBackup, configBackup]) expect(statSync(archive).mode & 0o777).to.equal(0o600)

    // Restored over a world whose contents' modes changed since (the world folder keeps its own).
    chmodTree(world, 0o700, 0o600)
    chmodSync(world, 0o755)
    await cliInOk(data, ['server', 'restore', 's1', reply.files[0].file])
    expect(modes(world)).to.deep.equal(kept)

    // A config restore puts the config file's mode back too.
    expect(statSync(join(dir, 'server.properties')).mode & 0o777).to.equal(0o640)
    chmodSync(join(dir, 'server.properties'), 0o600)
    await cliInOk(data, ['server', 'restore', 's1', reply.files[1].file])
    expect(statSync(join(dir, 'server.properties')).mode & 0o777).to.equal(0o640)

    // Exported, then imported over a private world: its folder stays private, what is in it is the archive's.
    const exported = join(tempDir(), 'copy.mcworld')
    await cliInOk(data, ['server', 'export', 's1', exported])
    chmodTree(world, 0o700, 0o600)
    await cliInOk(data, ['server', 'import', 's1', exported])
    expect(modes(world)).to.deep.equal({ ...kept, '.': '700' })
  })

  it('gives the entries of an archive that recorded no modes 0755 and 0644, never more open than the world they replace', async () => {
    const data = gameDataDir()
    const { world } = await stoppedBedrock(data)
    // An archiver that records no Unix modes (made on another system).
    const foreign = join(tempDir(), 'foreign.mcworld')
    await writeZip(foreign, { 'level.dat': 'level', 'levelname.txt': 'Foreign', 'db/CURRENT': 'MANIFEST-1\n' })
    writeFileSync(foreign, madeOnDos(readFileSync(foreign)))
    chmodTree(world, 0o755, 0o644)
    await cliInOk(data, ['server', 'import', 's1', foreign])
    expect(modes(world)).to.deep.equal({
      '.': '755',
      db: '755',
      'db/CURRENT': '644',
      'level.dat': '644',
      'levelname.txt': '644',
    })
    chmodSync(world, 0o750)
    await cliInOk(data, ['server', 'import', 's1', foreign])
    expect(modes(world)).to.deep.include({ '.': '750', db: '750', 'level.dat': '640' })
  })
})
