import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'chai'
import * as yauzl from 'yauzl'
import { RunFiles } from '../../../services/servers/supervisor/run-files'
import { cliIn, cliInOk } from '../../helpers/cli-in-process'
import { fakeJavaDir, gameDataDir, nextLine } from '../../helpers/game'
import { archivedState, printedState, slowFlushArgs, slowFlushDir } from '../../helpers/slow-flush'

/** The files of a zip, by name. */
async function zipFiles(file: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>()
  const zip = await yauzl.openPromise(file, { lazyEntries: true })
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue
      const chunks: Buffer[] = []
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer)
      files.set(entry.fileName, Buffer.concat(chunks))
    }
  } finally {
    zip.close()
  }
  return files
}

const CHAT = 'Unknown or incomplete command, see below for error'

describe("services/servers: a command's reply is the game's, never a player's chat (issue 32, item 3)", function () {
  this.timeout(120_000)

  it('a java server whose players chat "Unknown or incomplete command" every 150 ms: list and say succeed with the game\'s reply, and a hot backup succeeds and is exact', async () => {
    const data = gameDataDir()
    const { dir, java } = fakeJavaDir({ eula: true, env: { FAKE_CHAT_EVERY_MS: '150', FAKE_FLUSH_MS: '1000' } })
    const env = { PATH: `${dirname(java)}:${process.env.PATH}` }
    await cliInOk(data, ['server', 'add', 'paper', '--dir', dir], env)
    await cliInOk(data, ['server', 'start', 'paper'], env)
    const log = RunFiles.of(data, 'paper').log
    await nextLine(log, /\[Not Secure\] <Alex> Unknown or incomplete command/)

    const list = await cliIn(data, ['server', 'send', 'paper', 'list'])
    expect(list.code, list.stderr).to.equal(0)
    expect(list.stdout)
      .to.match(/There are 0 of a max of 20 players online:/)
      .and.not.include(CHAT)
    // A reply the profile does not know is read until the console is quiet: the chat never ends it.
    const say = await cliIn(data, ['server', 'send', 'paper', 'say', 'hello'])
    expect(say.code, say.stderr).to.equal(0)
    expect(say.stdout).to.include('[Server] hello').and.not.include(CHAT)

    const r = await cliIn(data, ['server', 'backup', 'paper', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    const reply = JSON.parse(r.stdout)
    expect(reply.method).to.equal('hot')
    const files = await zipFiles(join(data, 'backups', 'paper', reply.files[0].file))
    // The world as the flush left it: its level.dat says so, and nothing was written after it.
    expect(JSON.parse(String(files.get('level.dat')))).to.include({ flushed: 1 })
    expect(String(files.get('region/r.0.0.mca')).endsWith('flush 1\n')).to.equal(true)
    const lines = readFileSync(log, 'utf8').split('\n')
    const saved = lines.findIndex((line) => / Saved the game$/.test(line))
    expect(lines.findIndex((line) => /Automatic saving is now enabled/.test(line))).to.be.greaterThan(saved)
  })

  it("a generic server's own chat line (--chat-line): say and list succeed, a hot backup is byte-exact", async () => {
    const data = gameDataDir()
    const chat = { CHAT: `[Chat] Steve: ${CHAT}`, CHAT_EVERY_MS: '150', FLUSH_MS: '1000' }
    await cliInOk(
      data,
      slowFlushArgs(
        'g',
        slowFlushDir(),
        chat,
        ...['--hot-backup', 'save-off;save-all flush;save-on', '--hot-backup-done', '^World flushed: '],
        ...['--chat-line', '^\\[Chat\\] \\w+: '],
      ),
    )
    await cliInOk(data, ['server', 'start', 'g'])
    const log = RunFiles.of(data, 'g').log
    await nextLine(log, /^\[Chat\] Steve: /)
    const say = await cliIn(data, ['server', 'send', 'g', 'say', 'hi'])
    expect(say.code, say.stderr).to.equal(0)
    expect(say.stdout.trim()).to.equal('Said: hi')
    const list = await cliIn(data, ['server', 'send', 'g', 'list'])
    expect(list.code, list.stderr).to.equal(0)
    expect(list.stdout.trim()).to.equal('Online: 0 of 10')
    // A command the game refuses still is.
    const refused = await cliIn(data, ['server', 'send', 'g', 'nosuch'])
    expect(refused.code).to.equal(65)
    expect(refused.stderr).to.include('SM_ERR_SERVER_COMMAND_REFUSED')

    const flushed = nextLine(log, /^World flushed: /)
    const reply = JSON.parse(await cliInOk(data, ['server', 'backup', 'g', '--json']))
    expect(reply.method).to.equal('hot')
    expect(await archivedState(join(data, 'backups', 'g', reply.files[0].file))).to.equal(printedState(await flushed))
  })
})
