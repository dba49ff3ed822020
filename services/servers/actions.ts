import { defineActions } from '../../kernel/action-catalogue'
import type { ServerStatus, StartMode } from './supervisor/run-files'

declare module '../../kernel/maps' {
  interface ActionMap {
    /** A server starts; `after_server_start` fires once it is up (its ready line), or with the failure. */
    server_start: { readonly serverName: string; readonly mode: StartMode }
    /** A server stops: its stop command, then SIGTERM, then SIGKILL. */
    server_stop: { readonly serverName: string; readonly reason: 'stop' | 'restart' | 'schedule' | 'kill' | 'manager' }
    /** A command goes to a server's console. */
    command_send: { readonly serverName: string; readonly command: string }
    /** Observed: a server's status changed (also when no manager ran; recorded when next seen). */
    server_status_change: {
      readonly serverName: string
      readonly status: ServerStatus
      readonly previousStatus: ServerStatus
      /** When it happened (the fact may be recorded later). */
      readonly at: string
      readonly reason: string | undefined
      /** The entry of the server's status journal this fact records. */
      readonly journalSeq: number
      /**
       * On an end nobody saw (game and supervisor both gone): the last time the run is known to
       * have lived (its console log's last write), which `at`, the time the end was found, is not.
       */
      readonly lastKnown?: string
    }
    /** Observed: a server's game process ended without being asked to. */
    server_crash: {
      readonly serverName: string
      readonly exitCode: number | null
      readonly signal: string | null
      readonly at: string
      /** Crash restarts so far in this streak, and whether the restart policy starts it again. */
      readonly restarts: number
      readonly willRestart: boolean
    }
    /** A backup of a server's world, config or both (hot for a running bedrock server). */
    backup: { readonly serverName: string; readonly backupType: 'world' | 'config' | 'all' }
    /** A backup is put back in place (after a safety backup of what is there). */
    restore: { readonly serverName: string; readonly restoreType: 'world' | 'config'; readonly file: string }
    /** Backups beyond the retention are deleted. */
    prune_backups: { readonly serverName: string }
    /** A server's world is written to an archive (`.mcworld` for bedrock, `.zip` otherwise). */
    world_export: { readonly serverName: string; readonly file: string }
    /** A world archive (`.mcworld`, `.zip`) becomes a server's world. */
    world_import: { readonly serverName: string; readonly file: string }
    /** A server is installed from an archive or directory (`install`), or its binaries replaced (`update`). */
    server_install: { readonly serverName: string; readonly source: string; readonly mode: 'install' | 'update' }
    /** A server's server.properties change (only the keys given). */
    properties_change: { readonly serverName: string; readonly properties: Readonly<Record<string, string>> }
    /** A server's directory is deleted with it (`server remove --delete-files`). */
    delete_server_data: { readonly serverName: string; readonly dir: string }
    /** Observed (in the manager): a player joined a server, by its console's join line. */
    player_join: {
      readonly serverName: string
      readonly name: string
      /** The player's id where the game prints it: Bedrock's xuid, Java's UUID (online mode). */
      readonly id?: string
    }
    /**
     * Observed (in the manager): a player left a server: its console's leave line (`left`), the
     * game ended with them still online (`server_stopped`, `server_crashed`), or they were gone
     * when the manager looked again after it had not followed the game (`unseen`).
     */
    player_leave: {
      readonly serverName: string
      readonly name: string
      readonly id?: string
      readonly reason: 'left' | 'server_stopped' | 'server_crashed' | 'unseen'
      /** For `unseen`: the last time they were known online (the fact is recorded later). */
      readonly at?: string
    }
    /**
     * A player is added to or removed from a server's allowlist (Bedrock allowlist.json, Java
     * whitelist.json): by its console while it runs, else by editing the file.
     */
    allowlist_change: { readonly serverName: string; readonly change: 'add' | 'remove'; readonly player: string }
    /** A player is made an operator or no longer one (Bedrock permissions.json, Java ops.json). */
    operator_change: { readonly serverName: string; readonly change: 'add' | 'remove'; readonly player: string }
  }
}

export const serversActions = defineActions('servers', {
  server_start: {
    identity: ['serverName'],
    summary: 'a server starts (after: once it is up)',
    beforeAlias: 'beforeStartServer',
  },
  server_stop: { identity: ['serverName'], summary: 'a server stops (also as part of a restart)' },
  command_send: { identity: ['serverName', 'command'], summary: "a command goes to a server's console" },
  server_status_change: {
    identity: ['serverName', 'status'],
    summary: "a server's status changes (observed)",
  },
  server_crash: { identity: ['serverName'], summary: "a server's process ends on its own (observed)" },
  backup: { identity: ['serverName'], summary: "a server's world, config or both are backed up" },
  restore: { identity: ['serverName'], summary: 'a backup is put back in place' },
  prune_backups: { identity: ['serverName'], summary: 'backups beyond the retention are deleted' },
  world_export: { identity: ['serverName'], summary: "a server's world is exported to an archive (.mcworld, .zip)" },
  world_import: { identity: ['serverName'], summary: "a world archive becomes a server's world" },
  server_install: { identity: ['serverName'], summary: 'a server is installed or updated from an archive' },
  properties_change: { identity: ['serverName'], summary: "a server's server.properties change" },
  delete_server_data: {
    identity: ['serverName'],
    summary: "a server's files are deleted (server remove --delete-files)",
  },
  player_join: { identity: ['serverName', 'name'], summary: 'a player joins a server (observed, in the manager)' },
  player_leave: {
    identity: ['serverName', 'name'],
    summary: 'a player leaves a server, or the game ends with them online (observed, in the manager)',
  },
  allowlist_change: {
    identity: ['serverName', 'player'],
    summary: "a player is added to or removed from a server's allowlist",
  },
  operator_change: {
    identity: ['serverName', 'player'],
    summary: 'a player is made an operator of a server, or no longer one',
  },
})

/** The actions this service declares (their payload types). */
export type ServersActions = Pick<
  import('../../kernel/maps').ActionMap,
  | 'server_start'
  | 'server_stop'
  | 'command_send'
  | 'server_status_change'
  | 'server_crash'
  | 'backup'
  | 'restore'
  | 'prune_backups'
  | 'world_export'
  | 'world_import'
  | 'server_install'
  | 'properties_change'
  | 'delete_server_data'
  | 'player_join'
  | 'player_leave'
  | 'allowlist_change'
  | 'operator_change'
>
