import { readdirSync, rmSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fill, fullDiskSuite, show } from '../../helpers/full-disk'
import { cli } from '../../helpers/run'

/** The shipped plugins, which the test setup turns off for every other test. */
const withDefaults = { SM_DEFAULT_PLUGINS: 'on' }

describe('services/plugins: listing plugins on a full disk (issue 18, full disk: reads need no space)', function () {
  this.timeout(120_000)
  const disk = fullDiskSuite('sm-full-plugins-')

  it('imports them without the transpile cache when it cannot be written, and marks none invalid', async () => {
    const before = await cli(disk.data, ['plugin', 'list'], withDefaults)
    expect(before.code, show(before)).to.equal(0)
    expect(before.stdout).to.match(/autostart/)
    // An empty cache (a fresh install, or one cleaned up) on a full disk.
    rmSync(join(disk.data, 'cache', 'jiti'), { recursive: true, force: true })
    const filler = join(disk.mount, 'filler')
    fill(filler)
    try {
      const listed = await cli(disk.data, ['plugin', 'list'], withDefaults)
      expect(listed.code, show(listed)).to.equal(0)
      expect(listed.stdout).to.equal(before.stdout)
      expect(listed.stderr).not.to.match(/SM_ERR_PLUGIN_IMPORT_FAILED|ENOSPC/)
    } finally {
      unlinkSync(filler)
    }
    // With space again, the cache is written as before.
    const after = await cli(disk.data, ['plugin', 'list'], withDefaults)
    expect(after.code, show(after)).to.equal(0)
    expect(readdirSync(join(disk.data, 'cache', 'jiti'))).not.to.be.empty
  })
})
