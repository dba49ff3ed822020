import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { discover } from '../../../services/plugins/discovery'
import { classDescription } from '../../../services/plugins/doc-comment'
import { tempDir } from '../../helpers/temp-dir'

const touch = (path: string, text = '') => {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

describe('services/plugins: discovery', () => {
  it('finds single-file and package plugins, TypeScript and JavaScript, and ignores the rest', () => {
    const dir = tempDir()
    touch(join(dir, 'greeter.ts'))
    touch(join(dir, 'legacy.js'))
    touch(join(dir, 'pack', 'index.ts'))
    touch(join(dir, 'pack', 'helper.ts'))
    touch(join(dir, 'jspack', 'index.js'))
    touch(join(dir, 'types.d.ts'))
    touch(join(dir, '_private.ts'))
    touch(join(dir, '.hidden.ts'))
    touch(join(dir, 'notes.txt'))
    touch(join(dir, 'empty-folder', 'readme.md'))
    const { candidates, refused } = discover([{ source: 'user', dir }])
    expect(candidates.map((c) => [c.name, c.entry.slice(dir.length + 1)])).to.deep.equal([
      ['greeter', 'greeter.ts'],
      ['jspack', 'jspack/index.js'],
      ['legacy', 'legacy.js'],
      ['pack', 'pack/index.ts'],
    ])
    expect(refused).to.deep.equal([])
  })

  it('lets the first search path win a name clash, and refuses two of one name in one path', () => {
    const user = tempDir()
    const shipped = tempDir()
    touch(join(user, 'greeter.ts'))
    touch(join(shipped, 'greeter.ts'))
    touch(join(shipped, 'twin.ts'))
    touch(join(shipped, 'twin', 'index.ts'))
    const { candidates, shadowed, refused } = discover([
      { source: 'user', dir: user },
      { source: 'default', dir: shipped },
      { source: 'example', dir: join(shipped, 'does-not-exist') },
    ])
    expect(candidates.map((c) => `${c.name}:${c.source}`)).to.deep.equal(['greeter:user'])
    expect(shadowed.map((c) => `${c.name}:${c.source}`)).to.deep.equal(['greeter:default'])
    expect(refused.map((r) => [r.name, r.error.code])).to.deep.equal([['twin', 'SM_ERR_PLUGIN_DUPLICATE_NAME']])
  })

  it('refuses file names that cannot be plugin names', () => {
    const dir = tempDir()
    touch(join(dir, 'has space.ts'))
    const { refused } = discover([{ source: 'user', dir }])
    expect(refused.map((r) => r.error.code)).to.deep.equal(['SM_ERR_PLUGIN_INVALID_NAME'])
  })

  it('changes the hash when any file of a package changes', () => {
    const dir = tempDir()
    touch(join(dir, 'pack', 'index.ts'), 'a')
    touch(join(dir, 'pack', 'helper.ts'), 'b')
    const before = discover([{ source: 'user', dir }]).candidates[0]?.hash
    expect(discover([{ source: 'user', dir }]).candidates[0]?.hash).to.equal(before)
    utimesSync(join(dir, 'pack', 'helper.ts'), new Date(), new Date(Date.now() + 5_000))
    expect(discover([{ source: 'user', dir }]).candidates[0]?.hash).to.not.equal(before)
  })

  it("takes the description from the class's doc comment, in the entry or another module of the package", () => {
    const dir = tempDir()
    touch(
      join(dir, 'one.ts'),
      '/**\n * Says hello\n *   to everyone.\n * @author me\n */\nexport default class One {}\n',
    )
    touch(join(dir, 'pack', 'index.ts'), "export { default } from './impl'\n")
    touch(join(dir, 'pack', 'impl.ts'), '/** Lives elsewhere. */\n@decorated()\nexport default class Impl {}\n')
    expect(classDescription(join(dir, 'one.ts'), join(dir, 'one.ts'), 'One')).to.equal('Says hello to everyone.')
    expect(classDescription(join(dir, 'pack', 'index.ts'), join(dir, 'pack'), 'Impl')).to.equal('Lives elsewhere.')
    expect(classDescription(join(dir, 'one.ts'), join(dir, 'one.ts'), 'Other')).to.equal(undefined)
  })
})
