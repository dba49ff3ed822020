import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fakeBedrockDir } from '../../helpers/game'
import { withManager } from '../../helpers/manager'
import { tempDir } from '../../helpers/temp-dir'

/** A tmpfs every Linux has: another file system than the temporary directory's, when it is one. */
const OTHER_FS = '/dev/shm'

/**
 * The web layer spools an upload to a temporary file that is deleted when its request ends, and
 * gives it away (`move`): on the same file system it is moved into place, written to disk once.
 */
describe('services/files: an upload given away is moved in, not copied', () => {
  it('moves it beside its place on the same file system, copies it across, and copies what is not given away', async function () {
    const dir = fakeBedrockDir()
    const spool = join(tempDir(), 'upload')
    writeFileSync(spool, 'world bytes\n')
    if (statSync(spool).dev !== statSync(dir).dev) this.skip()
    await withManager(async (manager) => {
      await manager.bus.request('servers:add', { name: 'alpha', dir })
      const upload = (path: string, from: string, move: boolean) =>
        manager.bus.request('files:upload', { name: 'alpha', path, from, move })

      const inode = statSync(spool).ino
      expect(await upload('world.zip', spool, true)).to.include({ size: 12, replaced: false })
      expect(statSync(join(dir, 'world.zip')).ino, 'moved, not copied').to.equal(inode)
      expect(statSync(join(dir, 'world.zip')).nlink, 'one name').to.equal(1)
      expect(readFileSync(join(dir, 'world.zip'), 'utf8')).to.equal('world bytes\n')
      expect(existsSync(spool)).to.equal(false)

      writeFileSync(spool, 'kept\n')
      await upload('kept.txt', spool, false)
      expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).to.equal('kept\n')
      expect(readFileSync(spool, 'utf8'), 'not given away: left where it was').to.equal('kept\n')

      if (!existsSync(OTHER_FS) || statSync(OTHER_FS).dev === statSync(dir).dev) return
      const across = mkdtempSync(join(OTHER_FS, 'sm-test-'))
      try {
        writeFileSync(join(across, 'upload'), 'across\n')
        expect(await upload('across.txt', join(across, 'upload'), true)).to.include({ size: 7 })
        expect(readFileSync(join(dir, 'across.txt'), 'utf8')).to.equal('across\n')
      } finally {
        rmSync(across, { recursive: true, force: true })
      }
    })
  })
})
