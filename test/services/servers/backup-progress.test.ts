import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import { fakeBedrockDir } from '../../helpers/game'
import { withManager } from '../../helpers/manager'

/** Issue 34 item 5: progress counts what it backs up and restores, to the last file (an empty one too). */
describe('services/servers: backup and restore progress', () => {
  it('ends each with every file counted: files, not folders, out of the files there are', async () => {
    const dir = fakeBedrockDir()
    const world = join(dir, 'worlds', 'Bedrock level')
    mkdirSync(join(world, 'db'), { recursive: true })
    writeFileSync(join(world, 'level.dat'), 'a level')
    writeFileSync(join(world, 'db', 'CURRENT'), 'MANIFEST-000001\n')
    writeFileSync(join(world, 'db', 'LOCK'), '') // empty: counted all the same
    await withManager(async (manager) => {
      const seen: { operation: string; files: number; totalFiles: number }[] = []
      manager.bus.on('servers:backup_progress', (progress) => void seen.push(progress), { owner: 'test' })
      await manager.bus.request('servers:add', { name: 's1', dir })
      const backup = await manager.bus.request('servers:backup', { name: 's1' })
      const file = backup.files[0]?.file as string
      await manager.bus.request('servers:restore', { name: 's1', file })
      const last = (operation: string) => seen.filter((p) => p.operation === operation).at(-1)
      expect(last('backup')).to.include({ files: 3, totalFiles: 3 })
      expect(last('restore')).to.include({ files: 3, totalFiles: 3 })
    })
  })
})
