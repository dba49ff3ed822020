import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { createJiti } from 'jiti'
import type { Candidate } from '../../../services/plugins/discovery'
import { JITI_OPTIONS } from '../../../services/plugins/plugin-module'
import { stopTranspiler, warmTranspileCache } from '../../../services/plugins/thread/transpiler'
import { ROOT, run } from '../../helpers/run'
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

  it('leaves one plugin, when no thread runs, and a file it cannot read or parse, to the plugin’s own thread', async () => {
    await stopTranspiler()
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

  it('keeps its thread for the passes that follow: one file alone is transpiled while it runs', async () => {
    const dir = tempDir()
    const write = (name: string) => {
      const file = join(dir, `${name}.ts`)
      writeFileSync(file, `export const ${name}: string = '${name}'\n`)
      return { name, source: 'user' as const, entry: file, root: file, hash: name }
    }
    await warmTranspileCache([write('first'), write('second')], join(dir, 'cache'), 30_000)
    const later = join(dir, 'later-cache')
    await warmTranspileCache([write('third')], later, 30_000)
    expect(readdirSync(later)).to.have.length(1)
    expect(await cachedOnly(later).import<{ third: string }>(join(dir, 'third.ts'))).to.include({ third: 'third' })
    await stopTranspiler()
  })

  it('never holds a process that has nothing else to do (a real process: nothing of it is left active)', async () => {
    const dir = tempDir()
    for (const name of ['a', 'b']) writeFileSync(join(dir, `${name}.ts`), `export const ${name}: number = 1\n`)
    const script = `
      const { warmTranspileCache } = require(${JSON.stringify(join(ROOT, 'dist/services/plugins/thread/transpiler.js'))})
      const dir = ${JSON.stringify(dir)}
      const plugin = (name) => ({ name, source: 'user', entry: dir + '/' + name + '.ts', root: dir + '/' + name + '.ts', hash: name })
      warmTranspileCache([plugin('a'), plugin('b')], dir + '/cache', 30000).then(() =>
        setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo()))))`
    const result = await run(process.execPath, ['-e', script])
    expect(result.code, result.stderr).to.equal(0)
    expect(readdirSync(join(dir, 'cache'))).to.have.length(2)
    // Its own output pipes only: a worker still held would show as its port (the thread itself
    // is ended after 30 s idle, so the process would end then, late).
    expect((JSON.parse(result.stdout) as string[]).filter((type) => type !== 'PipeWrap')).to.deep.equal([])
  })
})
