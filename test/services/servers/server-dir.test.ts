import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { cliIn } from '../../helpers/cli-in-process'
import { tempDir } from '../../helpers/temp-dir'

function bedrockIn(dir: string): string {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'bedrock_server'), '#!/bin/sh\n', { mode: 0o755 })
  return dir
}

describe("services/servers: a server's directory by its real path (issue 18 item 15)", function () {
  this.timeout(60_000)

  it('refuses the directory of a registered server under another name (a symlink, a path with ..), inside it, holding it, or in the data directory', async () => {
    const data = tempDir()
    const root = tempDir()
    const real = bedrockIn(join(root, 'srv', 'survival'))
    const added = await cliIn(data, ['server', 'add', 'one', '--dir', real])
    expect(added.code, added.stderr).to.equal(0)

    symlinkSync(real, join(root, 'link'))
    symlinkSync(join(root, 'srv'), join(root, 'srvlink'))
    bedrockIn(join(real, 'nested'))
    symlinkSync(data, join(root, 'datalink'))
    const inData = bedrockIn(join(data, 'mine'))
    const cases: [string, string][] = [
      [join(root, 'link'), "it is already the server 'one'"],
      [join(root, 'srvlink', 'survival'), "it is already the server 'one'"],
      [`${join(root, 'srv')}/../srv/./survival/`, "it is already the server 'one'"],
      [join(root, 'link', 'nested'), "it is inside the directory of the server 'one'"],
      [root, "it holds the directory of the server 'one'"],
      [join(root, 'datalink'), 'it is or holds the data directory'],
      [inData, 'it is inside the data directory'],
    ]
    for (const [dir, reason] of cases) {
      const r = await cliIn(data, ['server', 'add', 'two', '--dir', dir, '--command', './x'])
      expect(r.code, `${dir}: ${r.stdout}${r.stderr}`).to.equal(66)
      expect(r.stderr, dir).to.contain('[SM_ERR_SERVER_DIR_UNUSABLE]').and.to.contain(reason)
    }
    const list = JSON.parse((await cliIn(data, ['server', 'list', '--json'])).stdout)
    expect(list.map((s: { name: string }) => s.name)).to.deep.equal(['one'])

    // A directory beside it is fine, and so is the folder install puts servers in.
    const beside = bedrockIn(join(root, 'srv', 'creative'))
    expect((await cliIn(data, ['server', 'add', 'two', '--dir', beside])).code).to.equal(0)
    const installed = bedrockIn(join(data, 'server-files', 'three'))
    expect((await cliIn(data, ['server', 'add', 'three', '--dir', installed])).code).to.equal(0)
  })
})
