import { join } from 'node:path'
import { SmError } from '../../../kernel'
import type { VerbTable } from './context'
import { asTask } from './long-work'

/** A server's backups: taking, listing, restoring and pruning them, and world exports and imports. */
export const backupVerbs = {
  'servers:backup': asTask('backup'),
  'servers:backups': async (ctx, { name }) => ctx.backups.list(await ctx.find(name)),
  'servers:backup_file': async (ctx, { name, file }) => {
    const server = await ctx.find(name)
    const found = (await ctx.backups.list(server)).find((b) => b.file === file)
    if (!found) throw new SmError('SM_ERR_BACKUP_NOT_FOUND', { server: name, file: String(file) })
    return { ...found, path: join(await ctx.backups.folder(server), found.file) }
  },
  'servers:restore': asTask('restore'),
  'servers:prune': async (ctx, { name, keep }) => ctx.backups.prune(await ctx.find(name), keep),
  'servers:export': asTask('export'),
  'servers:import': asTask('import'),
} satisfies VerbTable
