import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import type { SmError } from '../../../kernel/errors'
import { pieceStream } from '../../../services/web/pieces'
import { fakeBedrockDir } from '../../helpers/game'
import { withManager } from '../../helpers/manager'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

const b64 = (text: string) => Buffer.from(text).toString('base64')

/**
 * What crosses to another host in pieces (issue 22): files:stage receives a file for a command
 * there, files:read_bytes reads one located for a download; the web streams such pieces.
 */
describe('services/files: files in pieces, for servers on other hosts', () => {
  it('receives a file piece by piece, in order only, once, into the data directory; refuses what is out of turn; removes it when told, and all at the stop and the next start', async () => {
    const dataDir = tempDir()
    // What an earlier process left there (killed with -9).
    const leftover = join(dataDir, 'tmp', 'stage', '999999999', randomUUID()) // a process that is gone
    const another = join(dataDir, 'tmp', 'stage', String(process.ppid)) // one that runs: not touched
    mkdirSync(another, { recursive: true })
    mkdirSync(leftover, { recursive: true })
    writeFileSync(join(leftover, 'half.zip'), 'half')
    await withManager(
      async (manager) => {
        const stage = (piece: object) =>
          manager.bus.request('files:stage', { fileName: 'world.mcworld', last: false, ...piece } as never)
        const upload = randomUUID()
        expect(await stage({ upload, offset: 0, data: b64('abc') })).to.deep.equal({ bytes: 3 })
        // The same id again from its start; a piece out of turn; another file's name.
        for (const [piece, reason] of [
          [{ upload, offset: 0, data: b64('x') }, 'that upload id is in use already'],
          [{ upload, offset: 2, data: b64('x') }, '3 bytes are here, and this piece begins at 2'],
          [{ upload, offset: 3, data: b64('x'), fileName: 'other' }, "its pieces are of 'world.mcworld'"],
          [{ upload: randomUUID(), offset: 5, data: b64('x') }, 'its first pieces are not here'],
        ] as const) {
          const refused = (await rejection(stage(piece))) as SmError
          expect(refused.code).to.equal('SM_ERR_FILE_STAGE_BROKEN')
          expect(refused.message).to.contain(reason)
        }
        // Not base64: refused, not read as nothing.
        expect(((await rejection(stage({ upload, offset: 3, data: '!!!@@@' }))) as SmError).code).to.equal(
          'SM_ERR_BUS_BAD_PAYLOAD',
        )
        // Four pieces at the same offset at once: one goes in.
        const racing = await Promise.allSettled([1, 2, 3, 4].map(() => stage({ upload, offset: 3, data: b64('de') })))
        expect(racing.filter((r) => r.status === 'fulfilled')).to.have.length(1)
        const done = (await stage({ upload, offset: 5, data: b64('f'), last: true })) as { bytes: number; path: string }
        expect(done.bytes).to.equal(6)
        expect(readFileSync(done.path, 'utf8')).to.equal('abcdef')
        expect(done.path.startsWith(join(dataDir, 'tmp', 'stage'))).to.equal(true)
        expect(statSync(join(dataDir, 'tmp', 'stage', String(process.pid), upload)).mode & 0o777).to.equal(0o700)
        // Nothing after its last piece.
        expect(((await rejection(stage({ upload, offset: 6, data: b64('g') }))) as SmError).message).to.contain(
          'its last piece came already',
        )
        expect(existsSync(leftover), 'what an earlier process left is gone at the start').to.equal(false)
        await manager.bus.request('files:unstage', { upload })
        expect(existsSync(done.path)).to.equal(false)
        await stage({ upload: randomUUID(), offset: 0, data: b64('z') })
      },
      { dataDir },
    )
    // The stop removed what was still there; another running process's folder is its own.
    expect(readdirSync(join(dataDir, 'tmp', 'stage'))).to.deep.equal([String(process.ppid)])
  })

  it('reads a located file piece by piece while it is that file; a folder or a replaced file is refused with what to do', async () => {
    const dir = fakeBedrockDir()
    writeFileSync(join(dir, 'log.txt'), 'one two three')
    await withManager(async (manager) => {
      await manager.bus.request('servers:add', { name: 'alpha', dir })
      const located = await manager.bus.request('files:download', { name: 'alpha', path: 'log.txt' })
      const read = (offset: number, length: number, path = 'log.txt') =>
        manager.bus.request('files:read_bytes', { name: 'alpha', path, identity: located.identity, offset, length })
      expect(await read(4, 3)).to.deep.equal({ data: b64('two'), eof: false })
      expect(await read(8, 100)).to.deep.equal({ data: b64('three'), eof: true })
      expect(((await rejection(read(0, 1, ''))) as SmError).code).to.equal('SM_ERR_FILE_WRONG_TYPE')
      // Another file put in its place (made while the first still is: another inode).
      writeFileSync(join(dir, 'new.txt'), 'another file')
      renameSync(join(dir, 'new.txt'), join(dir, 'log.txt'))
      const replaced = (await rejection(read(0, 3))) as SmError
      expect(replaced.code).to.equal('SM_ERR_FILE_REPLACED')
      expect(replaced.message).to.contain('Download it again')
    })
  })

  it('streams no more than the size located and announced, though the file grew meanwhile', async () => {
    const file = Buffer.from('0123456789abcdef')
    const asked: [number, number][] = []
    const stream = await pieceStream(async (offset, length) => {
      asked.push([offset, length])
      // It grew: every read says there is more.
      return { data: file.subarray(offset, offset + Math.min(length, 4)).toString('base64'), eof: false }
    }, 10)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    expect(Buffer.concat(chunks).toString()).to.equal('0123456789')
    expect(asked).to.deep.equal([
      [0, 10],
      [4, 6],
      [8, 2],
    ])
    expect(await (await pieceStream(async () => ({ data: '', eof: true }), 0)).toArray()).to.deep.equal([])
  })
})
