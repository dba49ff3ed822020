import { join } from 'node:path'
import { expect } from 'chai'
import * as sdk from '../../../index'
import { discover } from '../../../services/plugins/discovery'
import { cacheDirOf, PluginImporter, SHIPPED_CACHE, staticsOf } from '../../../services/plugins/plugin-module'
import { shippedPaths, shippedStatics } from '../../../services/plugins/shipped'
import { tempDir } from '../../helpers/temp-dir'

describe('services/plugins: the shipped plugins are discovered when the package is built', () => {
  const { candidates } = discover(shippedPaths())

  it('holds every shipped plugin, as an import of its code says it is today', async () => {
    expect(candidates.map(({ source }) => source)).to.include.members(['default', 'example'])
    const importer = new PluginImporter(
      { sdk, web: () => require('../../../web'), cli: () => require('../../../cli') },
      tempDir(),
    )
    for (const candidate of candidates)
      expect(shippedStatics(candidate), candidate.name).to.deep.equal(
        JSON.parse(JSON.stringify(staticsOf(await importer.import(candidate)))),
      )
  })

  it('transpiles them into the package’s cache, and a default from another folder into the data directory’s', () => {
    const [first] = candidates
    if (!first) throw new Error('no shipped plugin found')
    expect(cacheDirOf(first, '/data/cache/jiti')).to.equal(SHIPPED_CACHE)
    const elsewhere = join(tempDir(), 'autostart.ts')
    expect(cacheDirOf({ ...first, root: elsewhere, entry: elsewhere }, '/data/cache/jiti')).to.equal('/data/cache/jiti')
    expect(cacheDirOf({ ...first, source: 'user' }, '/data/cache/jiti')).to.equal('/data/cache/jiti')
    expect(cacheDirOf(first, false)).to.equal(false)
  })

  it('answers nothing for a plugin whose files changed since, or that is not shipped', () => {
    const [first] = candidates
    if (!first) throw new Error('no shipped plugin found')
    expect(shippedStatics({ ...first, hash: `${first.hash}x` })).to.equal(undefined)
    expect(shippedStatics({ ...first, entry: `${first.entry}.ts` })).to.equal(undefined)
    expect(shippedStatics({ ...first, source: 'user' })).to.equal(undefined)
  })
})
