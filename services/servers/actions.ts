import { z } from 'zod'
import { type ActionsOf, defineActions } from '../../kernel/action-catalogue'
import { serverStatus, startMode } from './contract'

/** Every server action's payload names its server. */
const about = z.object({ serverName: z.string() })
const listChange = about.extend({ change: z.enum(['add', 'remove']), player: z.string() }).readonly()

export const serversActions = defineActions('servers', {
  /** A server starts; `after_server_start` fires once it is up (its ready line), or with the failure. */
  server_start: {
    payload: about.extend({ mode: startMode }).readonly(),
    identity: ['serverName'],
    summary: 'a server starts (after: once it is up)',
    beforeAlias: 'beforeStartServer',
  },
  /** A server stops: its stop command, then SIGTERM, then SIGKILL. */
  server_stop: {
    payload: about.extend({ reason: z.enum(['stop', 'restart', 'schedule', 'kill', 'manager']) }).readonly(),
    identity: ['serverName'],
    summary: 'a server stops (also as part of a restart)',
  },
  /** A command goes to a server's console. */
  command_send: {
    payload: about.extend({ command: z.string() }).readonly(),
    identity: ['serverName', 'command'],
    summary: "a command goes to a server's console",
  },
  /** Observed: a server's status changed (also when no manager ran; recorded when next seen). */
  server_status_change: {
    payload: about
      .extend({
        status: serverStatus,
        previousStatus: serverStatus,
        /** When it happened (the fact may be recorded later). */
        at: z.string(),
        reason: z.string().optional(),
        /** The entry of the server's status journal this fact records. */
        journalSeq: z.number(),
        /**
         * On an end nobody saw (game and supervisor both gone): the last time the run is known to
         * have lived (its console log's last write), which `at`, the time the end was found, is not.
         */
        lastKnown: z.string().optional(),
      })
      .readonly(),
    identity: ['serverName', 'status'],
    summary: "a server's status changes (observed)",
  },
  /** Observed: a server's game process ended without being asked to. */
  server_crash: {
    payload: about
      .extend({
        exitCode: z.number().nullable(),
        signal: z.string().nullable(),
        at: z.string(),
        /** Crash restarts so far in this streak, and whether the restart policy starts it again. */
        restarts: z.number(),
        willRestart: z.boolean(),
      })
      .readonly(),
    identity: ['serverName'],
    summary: "a server's process ends on its own (observed)",
  },
  /** A backup of a server's world, config or both (hot for a running bedrock server). */
  backup: {
    payload: about.extend({ backupType: z.enum(['world', 'config', 'all']) }).readonly(),
    identity: ['serverName'],
    summary: "a server's world, config or both are backed up",
  },
  /** A backup is put back in place (after a safety backup of what is there). */
  restore: {
    payload: about.extend({ restoreType: z.enum(['world', 'config']), file: z.string() }).readonly(),
    identity: ['serverName'],
    summary: 'a backup is put back in place',
  },
  /** Backups beyond the retention are deleted. */
  prune_backups: {
    payload: about.readonly(),
    identity: ['serverName'],
    summary: 'backups beyond the retention are deleted',
  },
  /** A server's world is written to an archive (`.mcworld` for bedrock, `.zip` otherwise). */
  world_export: {
    payload: about.extend({ file: z.string() }).readonly(),
    identity: ['serverName'],
    summary: "a server's world is exported to an archive (.mcworld, .zip)",
  },
  /** A world archive (`.mcworld`, `.zip`) becomes a server's world. */
  world_import: {
    payload: about.extend({ file: z.string() }).readonly(),
    identity: ['serverName'],
    summary: "a world archive becomes a server's world",
  },
  /** A server is installed from an archive or directory (`install`), or its binaries replaced (`update`). */
  server_install: {
    payload: about.extend({ source: z.string(), mode: z.enum(['install', 'update']) }).readonly(),
    identity: ['serverName'],
    summary: 'a server is installed or updated from an archive',
  },
  /** A server's server.properties change (only the keys given). */
  properties_change: {
    payload: about.extend({ properties: z.record(z.string(), z.string()).readonly() }).readonly(),
    identity: ['serverName'],
    summary: "a server's server.properties change",
  },
  /** A server's directory is deleted with it (`server remove --delete-files`). */
  delete_server_data: {
    payload: about.extend({ dir: z.string() }).readonly(),
    identity: ['serverName'],
    summary: "a server's files are deleted (server remove --delete-files)",
  },
  /** Observed (in the manager): a player joined a server, by its console's join line. */
  player_join: {
    payload: about
      .extend({
        name: z.string(),
        /** The player's id where the game prints it: Bedrock's xuid, Java's UUID (online mode). */
        id: z.string().optional(),
      })
      .readonly(),
    identity: ['serverName', 'name'],
    summary: 'a player joins a server (observed, in the manager)',
  },
  /**
   * Observed (in the manager): a player left a server: its console's leave line (`left`), the
   * game ended with them still online (`server_stopped`, `server_crashed`), or they were gone
   * when the manager looked again after it had not followed the game (`unseen`).
   */
  player_leave: {
    payload: about
      .extend({
        name: z.string(),
        id: z.string().optional(),
        reason: z.enum(['left', 'server_stopped', 'server_crashed', 'unseen']),
        /** For `unseen`: the last time they were known online (the fact is recorded later). */
        at: z.string().optional(),
      })
      .readonly(),
    identity: ['serverName', 'name'],
    summary: 'a player leaves a server, or the game ends with them online (observed, in the manager)',
  },
  /**
   * A player is added to or removed from a server's allowlist (Bedrock allowlist.json, Java
   * whitelist.json): by its console while it runs, else by editing the file.
   */
  allowlist_change: {
    payload: listChange,
    identity: ['serverName', 'player'],
    summary: "a player is added to or removed from a server's allowlist",
  },
  /** A player is made an operator or no longer one (Bedrock permissions.json, Java ops.json). */
  operator_change: {
    payload: listChange,
    identity: ['serverName', 'player'],
    summary: 'a player is made an operator of a server, or no longer one',
  },
})

declare module '../../kernel/maps' {
  interface ActionMap extends ActionsOf<typeof serversActions> {}
}

/** The actions this service declares (their payload types). */
export type ServersActions = ActionsOf<typeof serversActions>
