import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { writeCliCache } from '../../../services/plugins/cli-contributions'
import { fill, tmpfsForDescribe } from '../../helpers/full-disk'

describe('services/cli: the CLI cache on a full disk (issue 18 item 4 of the faults retest)', () => {
  const mountPoint = tmpfsForDescribe('1m')

  it('writeCliCache fails with ENOSPC and leaves no .tmp file behind', () => {
    const dir = join(mountPoint(), 'cache')
    fill(join(mountPoint(), 'filler'))
    expect(() => writeCliCache(join(dir, 'cli.json'), '1.0.0', [])).to.throw(/ENOSPC/)
    expect(readdirSync(dir)).to.deep.equal([])
  })
})
