import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeBedrockDir } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'

describe('services/files: server files on the command line', () => {
  it('lists a folder, folders first, a link out shown and not followed, and refuses a path out', async () => {
    const dataDir = tempDir()
    const dir = fakeBedrockDir()
    mkdirSync(join(dir, 'worlds'))
    writeFileSync(join(dir, 'worlds', 'level.dat'), 'x'.repeat(2048))
    symlinkSync('/etc', join(dir, 'etc'))
    await cliInOk(dataDir, ['server', 'add', 'alpha', '--dir', dir])
    const lines = (await cliInOk(dataDir, ['server', 'files', 'alpha'])).trimEnd().split('\n')
    expect(lines[0]).to.match(/^NAME\s+SIZE\s+MODIFIED$/)
    expect(lines[1]).to.match(/^worlds\/\s/)
    expect(lines.find((l) => l.startsWith('etc'))).to.contain('-> (outside the server directory)')
    expect(await cliInOk(dataDir, ['server', 'files', 'alpha', 'worlds'])).to.match(/level\.dat\s+2\.0 KiB/)
    for (const [path, code, exit] of [
      ['etc', 'SM_ERR_FILE_OUTSIDE', 77],
      ['../..', 'SM_ERR_FILE_PATH_INVALID', 64],
    ] as const) {
      const refused = await cliIn(dataDir, ['server', 'files', 'alpha', path])
      expect(refused.code, refused.stderr).to.equal(exit)
      expect(refused.stderr).to.contain(code)
    }
  })
})
