import { randomBytes } from 'node:crypto'
import {
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { expect } from 'chai'
import * as yazl from 'yazl'
import { knowErrors, SmError } from '../../../kernel'
import { extractZip } from '../../../services/servers/backups/archive'
import { serversErrors } from '../../../services/servers/errors'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { tmpfsForDescribe } from '../../helpers/full-disk'
import { FAKE_BEDROCK, fakeBedrockDir, gameDataDir } from '../../helpers/game'
import type { RunResult } from '../../helpers/run'
import { tempDir } from '../../helpers/temp-dir'

// The servers' codes, known as in the processes that raise them (a host agent, a CLI).
knowErrors(serversErrors)

const GIB = 1024 * 1024 * 1024

/** A zip at a new path of `entries`: text, or `{ zeros }` bytes of zeros, or `{ link }` a symbolic link to it. */
function zip(entries: Record<string, string | { zeros: number } | { link: string }>): Promise<string> {
  const file = join(tempDir(), 'archive.zip')
  const archive = new yazl.ZipFile()
  for (const [name, entry] of Object.entries(entries)) {
    if (typeof entry === 'string') archive.addBuffer(Buffer.from(entry), name)
    else if ('link' in entry) archive.addBuffer(Buffer.from(entry.link), name, { mode: 0o120777 })
    else archive.addReadStream(zeros(entry.zeros), name, { size: entry.zeros })
  }
  archive.end()
  return new Promise((resolve, reject) =>
    archive.outputStream
      .pipe(createWriteStream(file))
      .on('close', () => resolve(file))
      .on('error', reject),
  )
}

/** `bytes` zeros, in pieces of 1 MiB. */
function zeros(bytes: number): Readable {
  const piece = Buffer.alloc(1024 * 1024)
  let left = bytes
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null)
      const size = Math.min(left, piece.length)
      left -= size
      this.push(size === piece.length ? piece : piece.subarray(0, size))
    },
  })
}

/** A Bedrock release whose server is the fake, with `extra` entries. */
function release(extra: Parameters<typeof zip>[0] = {}): Promise<string> {
  return zip({
    bedrock_server: `#!/bin/sh\nexec '${process.execPath}' '${FAKE_BEDROCK}' "$@"\n`,
    'server.properties': 'server-name=Dedicated Server\nlevel-name=Bedrock level\n',
    'release-notes.txt': 'notes\n',
    ...extra,
  })
}

/** The bytes of the files under `dir` (links not followed); 0 for none. */
function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0
  let bytes = 0
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name)
    bytes += item.isDirectory() ? bytesUnder(path) : lstatSync(path).size
  }
  return bytes
}

let built: Promise<string> | undefined
/** 1 GiB of zeros in a zip of about 1 MiB, built once. */
const bomb = () => {
  built ??= release({ 'data.bin': { zeros: GIB } })
  return built
}

function refused(r: RunResult, code: string, exit: number): void {
  expect(r.stderr, r.stdout + r.stderr).to.include(`[${code}]`)
  expect(r.code).to.equal(exit)
}

describe('services/servers: archives that are not what they say are refused before they are written (issue 32, item 11)', function () {
  this.timeout(180_000)

  it('refuses an install, an update and a world import that unpack past servers.max_unpacked_mb (413), writing nothing big', async () => {
    const file = await bomb()
    expect(lstatSync(file).size).to.be.lessThan(2 * 1024 * 1024) // about 1 MiB holding 1 GiB
    const data = gameDataDir()
    await cliInOk(data, ['setting', 'set', 'servers.max_unpacked_mb', '512'])
    const parent = tempDir()
    const target = join(parent, 's1')
    const install = await cliIn(data, ['server', 'install', 's1', '--from', file, '--dir', target])
    refused(install, 'SM_ERR_ARCHIVE_TOO_LARGE', 65)
    expect(install.stderr).to.include('it unpacks to 1025 MB, more than servers.max_unpacked_mb allows (512 MB)')
    expect(readdirSync(parent)).to.deep.equal([])
    expect(bytesUnder(data)).to.be.lessThan(16 * 1024 * 1024)

    // An update and an import of it are refused too, the server as it was.
    const dir = fakeBedrockDir()
    mkdirSync(join(dir, 'worlds', 'Bedrock level'), { recursive: true })
    writeFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), 'our world')
    await cliInOk(data, ['server', 'add', 's2', '--dir', dir])
    const before = bytesUnder(dir)
    refused(await cliIn(data, ['server', 'update', 's2', '--from', file]), 'SM_ERR_ARCHIVE_TOO_LARGE', 65)
    refused(await cliIn(data, ['server', 'import', 's2', file]), 'SM_ERR_ARCHIVE_TOO_LARGE', 65)
    expect(bytesUnder(dir)).to.equal(before)
    expect(readFileSync(join(dir, 'worlds', 'Bedrock level', 'level.dat'), 'utf8')).to.equal('our world')
    expect(readdirSync(join(dir, '..')).filter((name) => name.includes('.incoming-'))).to.deep.equal([])
    expect(bytesUnder(data)).to.be.lessThan(16 * 1024 * 1024)
  })

  it('counts what it unpacks, not only what the zip declares: past the cap the extraction stops', async () => {
    const file = await bomb()
    const into = join(tempDir(), 'out')
    const failure = await extractZip(file, into, undefined, undefined, { maxBytes: 8 * 1024 * 1024 }).catch(
      (error) => error,
    )
    expect(failure).to.be.instanceOf(SmError)
    expect((failure as SmError).code).to.equal('SM_ERR_ARCHIVE_TOO_LARGE')
    expect((failure as SmError).message).to.include('more than 8 MB')
    // Stopped at the cap (give or take the pieces in flight), far from the 1 GiB.
    expect(bytesUnder(into)).to.be.lessThan(16 * 1024 * 1024)
  })

  it('refuses a link in a release, and a release whose worlds is a file, so later updates still work (422)', async () => {
    const data = gameDataDir()
    const dir = fakeBedrockDir()
    await cliInOk(data, ['server', 'add', 's1', '--dir', dir])
    const link = await cliIn(data, ['server', 'update', 's1', '--from', await release({ worlds: { link: '/etc' } })])
    refused(link, 'SM_ERR_BACKUP_UNSAFE_ENTRY', 65)
    expect(link.stderr).to.include("its entry 'worlds' cannot be extracted (it is a symbolic link)")
    const inside = await cliIn(data, [
      'server',
      'update',
      's1',
      '--from',
      await release({ behavior_packs: 'a file', 'behavior_packs/x.json': '{}' }),
    ])
    refused(inside, 'SM_ERR_BACKUP_UNSAFE_ENTRY', 65)
    expect(inside.stderr).to.include("inside 'behavior_packs', which the archive holds as a file")
    const file = await cliIn(data, ['server', 'update', 's1', '--from', await release({ worlds: 'not a folder' })])
    refused(file, 'SM_ERR_INSTALL_INVALID', 65)
    expect(file.stderr).to.include("its 'worlds' is not a folder, and 's1' keeps its world in one")
    expect(existsSync(join(dir, 'worlds'))).to.equal(false)
    // A link in a folder to install from is refused as well.
    const folder = fakeBedrockDir()
    symlinkSync('/etc', join(folder, 'worlds'))
    refused(
      await cliIn(data, ['server', 'install', 's2', '--from', folder, '--dir', join(tempDir(), 's2')]),
      'SM_ERR_BACKUP_UNSAFE_ENTRY',
      65,
    )
    // Nothing of them stayed: the next update works.
    expect(await cliInOk(data, ['server', 'update', 's1', '--from', await release()])).to.match(/Updated 's1'/)
    expect(readFileSync(join(dir, 'release-notes.txt'), 'utf8')).to.equal('notes\n')
  })

  it('refuses a "jar" of random bytes, installing nothing (422)', async () => {
    const data = gameDataDir()
    const jar = join(tempDir(), 'paper-1.21.4-12.jar')
    writeFileSync(jar, randomBytes(64 * 1024))
    const parent = tempDir()
    const r = await cliIn(data, ['server', 'install', 'paper', '--from', jar, '--dir', join(parent, 'paper')])
    refused(r, 'SM_ERR_INSTALL_INVALID', 65)
    expect(r.stderr).to.include('it is not a Java program')
    expect(readdirSync(parent)).to.deep.equal([])
    expect(JSON.parse(await cliInOk(data, ['server', 'list', '--json']))).to.deep.equal([])
  })

  describe('on a disk with less room than the archive unpacks to', () => {
    const mount = tmpfsForDescribe('32m')

    it('refuses it before writing (413), whatever the cap', async () => {
      const data = gameDataDir()
      const target = join(mount(), 's1')
      const r = await cliIn(data, ['server', 'install', 's1', '--from', await bomb(), '--dir', target])
      refused(r, 'SM_ERR_ARCHIVE_NO_SPACE', 73)
      expect(r.stderr).to.match(/it unpacks to 1025 MB, and the disk of .* has \d+ MB free/)
      expect(readdirSync(mount())).to.deep.equal([])
    })
  })
})
