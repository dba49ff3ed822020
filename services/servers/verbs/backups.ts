import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { SmError } from '../../../kernel'
import { readPiece } from '../../../lib/pieces'
import type { ServersContext, VerbTable } from './context'
import { asTask } from './long-work'

/** A server's backups: taking, listing, restoring and pruning them, and world exports and imports. */
export const backupVerbs = {
  'servers:backup': asTask('backup'),
  'servers:backups': async (ctx, { name }) => ctx.backups.list(await ctx.find(name)),
  'servers:delete_backup': async (ctx, { name, file }) => ctx.backups.delete(await ctx.find(name), file),
  'servers:backup_file': (ctx, { name, file }) => backupFile(ctx, name, file),
  'servers:backup_bytes': async (ctx, { name, file, offset, length }) => {
    const { path, bytes } = await backupFile(ctx, name, file)
    const handle = await open(path, 'r')
    try {
      return await readPiece(handle, offset, length, bytes)
    } finally {
      await handle.close()
    }
  },
  'servers:restore': asTask('restore'),
  'servers:prune': async (ctx, { name, keep }) => ctx.backups.prune(await ctx.find(name), keep),
  'servers:export': asTask('export'),
  'servers:import': asTask('import'),
} satisfies VerbTable

/** One of the server's backups, by a name `servers:backups` lists, and where it is. */
async function backupFile(ctx: ServersContext, name: string, file: string) {
  const server = await ctx.find(name)
  const found = (await ctx.backups.list(server)).find((b) => b.file === file)
  if (!found) throw new SmError('SM_ERR_BACKUP_NOT_FOUND', { server: name, file: String(file) })
  return { ...found, path: join(await ctx.backups.folder(server), found.file) }
}
