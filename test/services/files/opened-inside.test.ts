import { mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'chai'
import { ServerDir } from '../../../services/files/contained-path'
import { readBytes, replaceFile } from '../../../services/files/text-file'
import { rejection } from '../../helpers/rejection'
import { tempDir } from '../../helpers/temp-dir'

/**
 * A path is checked, then used: a folder on it swapped for a link out in between must not be
 * followed. What is opened is checked again by the descriptor's own path (/proc/self/fd).
 */
describe('services/files: what is opened is checked, not only the path', () => {
  function layout() {
    const root = join(tempDir(), 'server')
    const outside = join(tempDir(), 'outside')
    for (const dir of [join(root, 'a', 'b'), join(outside, 'b')]) mkdirSync(dir, { recursive: true })
    writeFileSync(join(root, 'a', 'b', 'file.txt'), 'inside\n')
    writeFileSync(join(outside, 'b', 'file.txt'), 'outside\n')
    return { root, outside }
  }
  /** The folder `a` moved away and replaced by a link to `outside` (which holds a `b` too). */
  const swap = (root: string, outside: string) => {
    renameSync(join(root, 'a'), join(root, 'a-was'))
    symlinkSync(outside, join(root, 'a'))
  }

  it('refuses to read through a folder swapped for a link out after the check', async () => {
    const { root, outside } = layout()
    const dir = await ServerDir.open('s', root)
    const target = await dir.target('a/b/file.txt')
    swap(root, outside)
    const error = await rejection(readBytes(dir, target.real, target.path, 1024))
    expect(error.code).to.equal('SM_ERR_FILE_OUTSIDE')
  })

  it('refuses to write into a folder swapped for a link out after the check, leaving nothing there', async () => {
    const { root, outside } = layout()
    const dir = await ServerDir.open('s', root)
    const target = await dir.target('a/b/file.txt')
    swap(root, outside)
    const error = await rejection(
      replaceFile(dir, target.real, target.path, undefined, (temp) => writeFile(temp, 'planted\n', { flag: 'wx' })),
    )
    expect(error.code).to.equal('SM_ERR_FILE_OUTSIDE')
    expect(readdirSync(join(outside, 'b'))).to.deep.equal(['file.txt'])
  })
})
