import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { createJiti } from 'jiti'
import type { Candidate } from '../../../services/plugins/discovery'
import { JITI_OPTIONS } from '../../../services/plugins/plugin-module'
import { warmTranspileCache } from '../../../services/plugins/thread/transpiler'
import { tempDir } from '../../helpers/temp-dir'

/** jiti as a plugin's thread makes it (PluginImporter), but with a transform that must not run. */
const cachedOnly = (fsCache: string) =>
  createJiti(__filename, {
    ...JITI_OPTIONS,
    moduleCache: false,
    fsCache,
    transform: () => {
      throw new Error('transpiled again: the warmed cache was missed')
    },
  })

const source = (n: number) => `import { helper } from './helper'\nexport const value: number = helper(${n})\n`

describe('services/plugins: one thread transpiles a discovery pass for the plugins’ threads', () => {
  it('fills jiti’s cache as a plugin’s thread reads it: their imports transpile nothing again', async () => {
    const dir = tempDir()
    const cache = join(dir, 'cache')
    const file = join(dir, 'one.ts')
    writeFileSync(file, source(1))
    const folder = join(dir, 'two')
    mkdirSync(folder)
    writeFileSync(join(folder, 'index.ts'), source(2))
    writeFileSync(join(folder, 'helper.ts'), 'export const helper = (n: number): number => n * 10\n')
    writeFileSync(join(dir, 'helper.ts'), 'export const helper = (n: number): number => n + 100\n')
    const candidates: Candidate[] = [
      { name: 'one', source: 'user', entry: file, root: file, hash: 'a' },
      { name: 'two', source: 'user', entry: join(folder, 'index.ts'), root: folder, hash: 'b' },
    ]
    await warmTranspileCache(candidates, cache, 30_000)
    // one.ts, and both files of the folder plugin; a file plugin's own imports (its helper.ts) are its thread's.
    expect(readdirSync(cache)).to.have.length(3)

    expect(await cachedOnly(cache).import<{ value: number }>(join(folder, 'index.ts'))).to.include({ value: 20 })
    // Through a link to its folder too: jiti names the entry by its path, its imports by their real one.
    const linked = join(dir, 'linked')
    symlinkSync(folder, linked)
    const viaLink = join(dir, 'cache-via-link')
    await warmTranspileCache(
      [
        candidates[0] as Candidate,
        { name: 'linked', source: 'user', entry: join(linked, 'index.ts'), root: linked, hash: 'c' },
      ],
      viaLink,
      30_000,
    )
    expect(await cachedOnly(viaLink).import<{ value: number }>(join(linked, 'index.ts'))).to.include({ value: 20 })
  })

  it('leaves one plugin, and a file it cannot read or parse, to the plugin’s own thread', async () => {
    const dir = tempDir()
    const cache = join(dir, 'cache')
    const good = join(dir, 'good.ts')
    writeFileSync(good, 'export const ok: boolean = true\n')
    const bad = join(dir, 'bad.ts')
    writeFileSync(bad, 'export const = \n')
    await warmTranspileCache([{ name: 'good', source: 'user', entry: good, root: good, hash: 'a' }], cache, 30_000)
    expect(() => readdirSync(cache)).to.throw(/ENOENT/)
    await warmTranspileCache(
      [
        { name: 'good', source: 'user', entry: good, root: good, hash: 'a' },
        { name: 'bad', source: 'user', entry: bad, root: bad, hash: 'b' },
        { name: 'gone', source: 'user', entry: join(dir, 'gone.ts'), root: join(dir, 'gone.ts'), hash: 'c' },
      ],
      cache,
      30_000,
    )
    expect(readdirSync(cache)).to.have.length(1)
  })
})
