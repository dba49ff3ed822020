import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fill, tmpfsForDescribe } from '../../helpers/full-disk'
import { cli, cliStart } from '../../helpers/run'

describe('services/bridge: a manager started on a full disk (issue 18 item 2 of the faults retest)', function () {
  this.timeout(60_000)
  const mountPoint = tmpfsForDescribe('8m')

  it('fails with SM_ERR_DISK_FULL (exit 74) saying to free space, leaving no socket or manager.json behind', async () => {
    const data = join(mountPoint(), 'data')
    mkdirSync(data)
    const set = await cli(data, ['setting', 'set', 'web.enabled', 'false'])
    expect(set.code, set.stderr).to.equal(0)
    fill(join(mountPoint(), 'filler'))

    // The disk is full: no setting can be written, and the web server is off anyway.
    const r = await cliStart(data, [], {}, 'as set')
    expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(74)
    expect(r.stderr).to.match(/^Error \[SM_ERR_DISK_FULL\]: .*manager\.json.*Free space/m)
    expect(r.stderr).not.to.match(/SM_ERR_KERNEL_SERVICE_FAILED|This is a bug/)
    expect(readdirSync(data).filter((f) => f.startsWith('manager.'))).to.deep.equal([])
    expect(existsSync(join(data, 'manager.json.tmp'))).to.equal(false)
  })
})
