import { defineActions } from '../../kernel/action-catalogue'

declare module '../../kernel/maps' {
  interface ActionMap {
    /** A server's server.properties change (only the keys given). */
    properties_change: { readonly serverName: string; readonly properties: Readonly<Record<string, string>> }
    /** A server's directory is deleted with it (`server remove --delete-files`). */
    delete_server_data: { readonly serverName: string; readonly dir: string }
  }
}

defineActions('servers', {
  properties_change: { identity: ['serverName'], summary: "a server's server.properties change" },
  delete_server_data: {
    identity: ['serverName'],
    summary: "a server's files are deleted (server remove --delete-files)",
  },
})

/** The actions this service declares (their payload types). */
export type ServersActions = Pick<import('../../kernel/maps').ActionMap, 'properties_change' | 'delete_server_data'>
