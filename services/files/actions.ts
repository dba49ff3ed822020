import { z } from 'zod'
import { type ActionsOf, defineActions } from '../../kernel/action-catalogue'
import { fileEntry } from './contract'

/** A file's path in a server's directory, and the server. */
const inServer = z.object({ serverName: z.string(), path: z.string() })

export const filesActions = defineActions('files', {
  /** A text file in a server's directory is written whole from the file manager (never its text in the payload). */
  file_write: {
    payload: inServer.extend({ bytes: z.number() }).readonly(),
    identity: ['serverName', 'path'],
    summary: "a text file in a server's directory is saved",
  },
  /** A file is uploaded into a server's directory (new, or replacing one). */
  file_upload: {
    payload: inServer.extend({ bytes: z.number() }).readonly(),
    identity: ['serverName', 'path'],
    summary: "a file is uploaded into a server's directory",
  },
  /** An entry of a server's directory is renamed or moved inside it. */
  file_rename: {
    payload: inServer.extend({ to: z.string() }).readonly(),
    identity: ['serverName', 'path'],
    summary: "an entry of a server's directory is renamed or moved",
  },
  /** A folder is made in a server's directory. */
  directory_create: {
    payload: inServer.readonly(),
    identity: ['serverName', 'path'],
    summary: "a folder is made in a server's directory",
  },
  /** An entry of a server's directory is deleted (a folder with everything in it; a link, never its target). */
  file_delete: {
    payload: inServer.extend({ kind: fileEntry.shape.type }).readonly(),
    identity: ['serverName', 'path'],
    summary: "an entry of a server's directory is deleted",
  },
})

declare module '../../kernel/maps' {
  interface ActionMap extends ActionsOf<typeof filesActions> {}
}

/** The actions this service declares (their payload types). */
export type FilesActions = ActionsOf<typeof filesActions>
