import { defineActions } from '../../kernel/action-catalogue'
import type { FileEntry } from './contract'

declare module '../../kernel/maps' {
  interface ActionMap {
    /** A text file in a server's directory is written whole from the file manager (never its text in the payload). */
    file_write: { readonly serverName: string; readonly path: string; readonly bytes: number }
    /** A file is uploaded into a server's directory (new, or replacing one). */
    file_upload: { readonly serverName: string; readonly path: string; readonly bytes: number }
    /** An entry of a server's directory is renamed or moved inside it. */
    file_rename: { readonly serverName: string; readonly path: string; readonly to: string }
    /** A folder is made in a server's directory. */
    directory_create: { readonly serverName: string; readonly path: string }
    /** An entry of a server's directory is deleted (a folder with everything in it; a link, never its target). */
    file_delete: { readonly serverName: string; readonly path: string; readonly kind: FileEntry['type'] }
  }
}

export const filesActions = defineActions('files', {
  file_write: { identity: ['serverName', 'path'], summary: "a text file in a server's directory is saved" },
  file_upload: { identity: ['serverName', 'path'], summary: "a file is uploaded into a server's directory" },
  file_rename: { identity: ['serverName', 'path'], summary: "an entry of a server's directory is renamed or moved" },
  directory_create: { identity: ['serverName', 'path'], summary: "a folder is made in a server's directory" },
  file_delete: { identity: ['serverName', 'path'], summary: "an entry of a server's directory is deleted" },
})

/** The actions this service declares (their payload types). */
export type FilesActions = Pick<
  import('../../kernel/maps').ActionMap,
  'file_write' | 'file_upload' | 'file_rename' | 'directory_create' | 'file_delete'
>
