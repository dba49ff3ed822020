import './contract'
import './actions'
import './errors'
import './settings'
import type { Service } from '../../kernel'
import { FileManager } from './file-manager'

export type * from './contract'

/**
 * The file manager of servers' directories: list, read and save text files, upload, download,
 * rename, make folders, delete; every path contained in the server's directory by real paths,
 * every change an action (hooks, a fact without contents). The web's file routes and page use it.
 */
export function filesService(): Service {
  return {
    name: 'files',
    dependsOn: ['events', 'settings', 'servers'],
    start({ bus }) {
      const files = new FileManager(bus)
      bus.handle('files:list', ({ name, path }) => files.list(name, path))
      bus.handle('files:read', ({ name, path }) => files.read(name, path))
      bus.handle('files:write', ({ name, path, text, expectedHash }) => files.write(name, path, text, expectedHash))
      bus.handle('files:upload', ({ name, path, from, overwrite, move }) =>
        files.upload(name, path, from, { overwrite, move }),
      )
      bus.handle('files:download', ({ name, path }) => files.download(name, path))
      bus.handle('files:rename', ({ name, path, to }) => files.rename(name, path, to))
      bus.handle('files:mkdir', ({ name, path }) => files.mkdir(name, path))
      bus.handle('files:delete', ({ name, path }) => files.delete(name, path))
    },
  }
}
