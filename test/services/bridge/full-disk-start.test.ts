import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { fill } from '../../helpers/fill-disk'
import { cli } from '../../helpers/run'

describe('services/bridge: a manager started on a full disk (issue 18 item 2 of the faults retest)', function () {
  this.timeout(60_000)
  let mount: string | undefined

  before(function () {
    if (process.getuid?.() !== 0) {
      console.log('      (skipped: mounting a tmpfs for a full disk needs root)')
      this.skip()
    }
    mount = mkdtempSync(join(tmpdir(), 'sm-full-start-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount])
  })

  after(() => {
    if (!mount) return
    execFileSync('umount', ['-l', mount])
    rmSync(mount, { recursive: true, force: true })
  })

  it('fails with SM_ERR_DISK_FULL (exit 74) saying to free space, leaving no socket or manager.json behind', async () => {
    const data = join(mount as string, 'data')
    mkdirSync(data)
    const set = await cli(data, ['setting', 'set', 'web.enabled', 'false'])
    expect(set.code, set.stderr).to.equal(0)
    fill(join(mount as string, 'filler'))

    const r = await cli(data, ['start'])
    expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(74)
    expect(r.stderr).to.match(/^Error \[SM_ERR_DISK_FULL\]: .*manager\.json.*Free space/m)
    expect(r.stderr).not.to.match(/SM_ERR_KERNEL_SERVICE_FAILED|This is a bug/)
    expect(readdirSync(data).filter((f) => f.startsWith('manager.'))).to.deep.equal([])
    expect(existsSync(join(data, 'manager.json.tmp'))).to.equal(false)
  })
})
