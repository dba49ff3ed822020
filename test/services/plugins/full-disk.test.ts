import { readdirSync, rmSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import * as sdk from '../../../index'
import { PluginImporter } from '../../../services/plugins/plugin-module'
import { fill, fullDiskSuite, show } from '../../helpers/full-disk'
import { cli } from '../../helpers/run'

/** The shipped plugins, which the test setup turns off for every other test. */
const withDefaults = { SM_DEFAULT_PLUGINS: 'on' }

describe('services/plugins: listing plugins on a full disk (issue 18, full disk: reads need no space)', function () {
  this.timeout(120_000)
  const disk = fullDiskSuite('sm-full-plugins-')

  it('imports them without the transpile cache when it cannot be written, and marks none invalid', async () => {
    // A command that runs the enabled plugins (each imported in its thread), once with space.
    const ran = await cli(disk.data, ['setting', 'set', 'custom.before', 'yes'], withDefaults)
    expect(ran.code, show(ran)).to.equal(0)
    const before = await cli(disk.data, ['plugin', 'list'], withDefaults)
    expect(before.code, show(before)).to.equal(0)
    expect(before.stdout).to.match(/autostart/)
    // An empty cache (a fresh install, or one cleaned up) on a full disk.
    const cacheDir = join(disk.data, 'cache', 'jiti')
    rmSync(cacheDir, { recursive: true, force: true })
    const filler = join(disk.mount, 'filler')
    fill(filler)
    try {
      const listed = await cli(disk.data, ['plugin', 'list'], withDefaults)
      expect(listed.code, show(listed)).to.equal(0)
      expect(listed.stdout).to.equal(before.stdout)
      expect(listed.stderr).not.to.match(/SM_ERR_PLUGIN_IMPORT_FAILED|ENOSPC/)
      // What imports a plugin (discovery's inspector, the plugin's thread) does without the cache.
      const importer = new PluginImporter({ sdk }, cacheDir)
      // The shipped file plugin, from the package root (this file runs from dist/test/services/plugins).
      const file = join(__dirname, '..', '..', '..', '..', 'plugins', 'default', 'autostart.ts')
      const definition = await importer.import({
        name: 'autostart',
        source: 'default',
        root: file,
        entry: file,
        hash: '',
      })
      expect(definition.version).to.match(/^\d+\.\d+\.\d+$/)
    } finally {
      unlinkSync(filler)
    }
    // With space again, the cache is written as before.
    const after = await cli(disk.data, ['setting', 'set', 'custom.after', 'yes'], withDefaults)
    expect(after.code, show(after)).to.equal(0)
    expect(readdirSync(cacheDir)).not.to.be.empty
  })
})
