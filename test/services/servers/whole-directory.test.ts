import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliInOk } from '../../helpers/cli-in-process'
import { gameDataDir } from '../../helpers/game'
import { tempDir } from '../../helpers/temp-dir'

describe('services/servers: a generic server with no world folder is backed up whole (issue 32, item 5)', function () {
  this.timeout(60_000)

  it('archives its whole directory but its logs, says so, and a restore puts it back keeping the logs there now', async () => {
    const data = gameDataDir()
    const dir = tempDir('sm-whole-')
    mkdirSync(join(dir, 'saves', 'slot1'), { recursive: true })
    mkdirSync(join(dir, 'logs'))
    writeFileSync(join(dir, 'saves', 'slot1', 'map.dat'), 'the map as it was')
    writeFileSync(join(dir, 'game.cfg'), 'port=7777\n')
    writeFileSync(join(dir, 'logs', 'latest.log'), 'old log\n')
    writeFileSync(join(dir, 'server.log'), 'a log beside\n')
    await cliInOk(data, ['server', 'add', 'g', '--dir', dir, '--command', 'true'])

    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--type', 'world', '--json']))
    expect(reply.warning).to.match(/no world folder .* whole directory was backed up, its logs left out/)
    const file = reply.files[0].file as string
    const names = execFileSync('unzip', ['-Z1', join(data, 'backups', 'g', file)])
      .toString()
      .trim()
      .split('\n')
      .filter((name) => !name.endsWith('/'))
      .sort()
    expect(names).to.deep.equal(['game.cfg', 'saves/slot1/map.dat'])

    writeFileSync(join(dir, 'saves', 'slot1', 'map.dat'), 'the map, griefed')
    writeFileSync(join(dir, 'stray.txt'), 'made after the backup')
    writeFileSync(join(dir, 'logs', 'latest.log'), 'new log\n')
    await cliInOk(data, ['server', 'restore', 'g', file])
    expect(readFileSync(join(dir, 'saves', 'slot1', 'map.dat'), 'utf8')).to.equal('the map as it was')
    expect(() => readFileSync(join(dir, 'stray.txt'))).to.throw()
    // The logs are today's: a restore of the game's files leaves its logs as they are now.
    expect(readFileSync(join(dir, 'logs', 'latest.log'), 'utf8')).to.equal('new log\n')
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).to.equal('a log beside\n')
  })
})
