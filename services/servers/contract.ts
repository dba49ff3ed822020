import type { ActionResult } from '../../kernel'
import type { SeriesReply, SeriesRequest } from '../../lib/series-query'
import type { AccessChange, AccessEntry, AccessListName } from './access-lists'
import type { BackupFile, BackupReply, BackupType, CopyMethod } from './backups/backups'
import type { StartReply } from './control'
import type { PlayerRecord } from './player-history'
import type { PlayerList } from './player-list'
import type { GameProfile, ProfileFields, ProfileName } from './profiles'
import type { ListedSchedule, Schedule } from './schedules'
import type { ServerSettingView } from './server-settings'
import type { ExitReply, RunStatus, SendReply, ServerSample } from './supervisor/protocol'
import type { ServerStatus, StartMode } from './supervisor/run-files'

export type {
  AccessListProtocol,
  GameProfile,
  HotBackupProtocol,
  PlayersProtocol,
  WorldLocation,
} from './profiles'
/** The names of the game profiles (bedrock, java, generic). */
export { PROFILE_NAMES } from './profiles'
/** The statuses in which a server's game runs: starting, running, stopping. */
export { ACTIVE } from './supervisor/run-files'
export type {
  AccessChange,
  AccessEntry,
  AccessListName,
  BackupFile,
  BackupReply,
  BackupType,
  CopyMethod,
  ExitReply,
  PlayerList,
  PlayerRecord,
  RunStatus,
  SendReply,
  ServerSample,
  ServerStatus,
  StartMode,
  StartReply,
}

/**
 * How a server is run: `bedrock` (a Bedrock Dedicated Server directory), `java` (a Minecraft Java
 * Edition server jar) or `generic` (any console program); profiles.ts says what each knows.
 */
export type ServerProfile = ProfileName

/** One registered server (`server add`); its profile's fields it does not set come from the profile (profiles.ts). */
export interface ServerRecord extends ProfileFields {
  readonly name: string
  /** The server's directory (absolute). */
  readonly dir: string
  readonly profile: ServerProfile
  /** The executable, relative to `dir` or absolute (`./bedrock_server` for bedrock). */
  readonly command: string
  readonly args: readonly string[]
  /** Extra environment (bedrock gets `LD_LIBRARY_PATH=.` when it starts). */
  readonly env: Readonly<Record<string, string>>
  /** The console line that asks it to stop. */
  readonly stopCommand: string
  /** The world directory relative to `dir`; for bedrock it follows `level-name` in server.properties. */
  readonly worldDir: string | undefined
  /** ISO time it was added. */
  readonly addedAt: string
  /** Its own settings (`autostart`, `restart.*`, `backup.*`, `custom.*`); unset ones inherit (server-settings.ts). */
  readonly settings?: Readonly<Record<string, unknown>>
}

export interface AddServer {
  readonly name: string
  readonly dir: string
  /** Detected when not given: bedrock with a bedrock_server, java with a server jar, else generic. */
  readonly profile?: ProfileName
  readonly command?: string
  readonly args?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  readonly stopCommand?: string
  readonly worldDir?: string
  /** The console message that says it is ready (a regular expression). */
  readonly readyLine?: string
  /** How to tell players something: `say {message}`. */
  readonly sayCommand?: string
  /** Its config files, relative to its directory. */
  readonly configFiles?: readonly string[]
  /** Its hot-backup commands: `off;flush;on` (`save-off;save-all flush;save-on`). */
  readonly hotBackup?: string
  /** Reply messages that mean a command was refused (regular expressions). */
  readonly errorLines?: readonly string[]
}

/** A server as `server list` shows it: its record and its status now. */
export interface ServerSummary extends ServerRecord {
  readonly status: ServerStatus
  readonly pid: number | undefined
  /** How many players are online, while a manager follows it running and knows (its player tracker). */
  readonly players?: number
  /** Its supervisor's last resource sample, while it runs with sampling on. */
  readonly metrics?: ServerSample
}

/** A server's status, with who is online while a manager follows it running and knows. */
export interface ServerRunStatus extends RunStatus {
  readonly players?: PlayerList
}

/** A server as `server info` shows it: its record plus what its directory says now. */
export interface ServerInfo extends ServerRecord {
  /** The world directory in effect (absolute), when there is one. */
  readonly world: string | undefined
  readonly dirExists: boolean
}

declare module '../../kernel/maps' {
  interface EventMap {
    'servers:added': { readonly server: ServerRecord }
    'servers:removed': { readonly name: string; readonly filesDeleted: boolean }
    /** An admin accepted the game's EULA for the server (eula.txt now says eula=true). */
    'servers:eula_accepted': { readonly serverName: string }
    /** A per-server setting was set (`value` undefined: unset, it inherits again). */
    'servers:setting_changed': { readonly name: string; readonly key: string; readonly value: unknown }
    'servers:schedule_added': { readonly schedule: Schedule }
    'servers:schedule_removed': { readonly id: string; readonly server: string }
    /** A schedule ran (in the manager), with how it went. */
    'servers:schedule_ran': {
      readonly id: string
      readonly server: string
      readonly action: string
      readonly result: { readonly status: 'success' | 'error'; readonly message?: string; readonly code?: string }
    }
    /**
     * A resource sample a followed server's supervisor took (in the manager, live; not recorded:
     * samples are a rolling series in its run directory), with who is online when the manager knows.
     */
    'servers:sampled': {
      readonly serverName: string
      readonly sample: ServerSample
      readonly players?: { readonly online: number; readonly max: number | undefined }
    }
    /** A line a running server wrote to its console (in the manager, live; not recorded). */
    'servers:console': { readonly serverName: string; readonly line: string }
    /** Progress of a backup, restore or export (at most one per percent; not recorded). */
    'servers:backup_progress': {
      readonly serverName: string
      readonly operation: 'backup' | 'restore' | 'export'
      readonly file: string
      readonly bytes: number
      readonly totalBytes: number
      readonly files: number
      readonly totalFiles: number
      readonly percent: number
    }
  }

  interface CommandMap {
    /** Adopts an existing directory as a server (profile detected: bedrock when it holds bedrock_server). */
    'servers:add': { payload: AddServer; reply: ServerRecord }
    'servers:list': { payload: Record<string, never>; reply: ServerSummary[] }
    'servers:info': { payload: { name: string }; reply: ServerInfo }
    /** The game profile in effect for the server: its profile's fields, the server's own over them (plain data). */
    'servers:profile': { payload: { name: string }; reply: GameProfile }
    /** Forgets a server; with `deleteFiles`, deletes its directory too (the delete_server_data action). */
    'servers:remove': { payload: { name: string; deleteFiles?: boolean }; reply: ActionResult }
    /** The server's server.properties as key → value, in file order. */
    'servers:properties': { payload: { name: string }; reply: Record<string, string> }
    /** Changes keys of server.properties (the properties_change action), keeping comments and order. */
    'servers:set_properties': {
      payload: { name: string; properties: Record<string, string> }
      reply: { readonly changed: Record<string, { from: string | undefined; to: string }> }
    }
    /**
     * The server's status now (its process identity checked, not just its PID), with who is
     * online when the manager's player tracker knows (a manager runs and follows it).
     */
    'servers:status': { payload: { name: string }; reply: ServerRunStatus }
    /**
     * Who is online: its profile's list command, asked live and not as a command_send action
     * (SM_ERR_SERVER_PLAYERS_UNKNOWN when its profile cannot tell).
     */
    'servers:players': { payload: { name: string }; reply: PlayerList }
    /**
     * Everyone who joined the server while a manager followed it (the player_history projection):
     * name, last id, first and last seen, joins, time played, online now; the latest seen first.
     */
    'servers:player_history': { payload: { name: string }; reply: PlayerRecord[] }
    /**
     * The server's allowlist or operators as its file says (SM_ERR_SERVER_ACCESS_UNKNOWN when its
     * profile knows none); names come from the player history where the file has only ids.
     */
    'servers:access_list': { payload: { name: string; list: AccessListName }; reply: AccessEntry[] }
    /**
     * Adds a player to the allowlist or operators, or removes them (the allowlist_change or
     * operator_change action): by the console while the game runs, else by editing the file.
     */
    'servers:access_change': {
      payload: { name: string; list: AccessListName; change: 'add' | 'remove'; player: string }
      reply: AccessChange
    }
    /** Starts it (the server_start action); answers once it is up. */
    'servers:start': { payload: { name: string; mode?: StartMode }; reply: StartReply }
    /**
     * Begins long work on a server as a task and answers at once with its id (the web API's
     * 202): its progress and result come as tasks:progress and tasks:finished.
     */
    'servers:begin': {
      payload:
        | { action: 'start' | 'stop' | 'restart'; name: string }
        | { action: 'backup'; name: string; type?: BackupType; stopStart?: boolean }
        | { action: 'restore'; name: string; file: string; stopStart?: boolean }
      reply: { taskId: string }
    }
    /** Stops it (the server_stop action): the stop command, then SIGTERM, then SIGKILL. */
    'servers:stop': { payload: { name: string }; reply: ExitReply }
    /** Stops it if it runs, then starts it (both actions fire). */
    'servers:restart': { payload: { name: string }; reply: StartReply }
    /** SIGKILL now, whatever power action is in progress. */
    'servers:kill': { payload: { name: string }; reply: ExitReply }
    /** Sends one console command (the command_send action), with the reply lines where they are known. */
    'servers:send': { payload: { name: string; command: string }; reply: SendReply }
    /**
     * Backs up the world, config or both (the backup action); retention applies after. A running
     * server hot where its profile can, else stopped and started again with a `warning`;
     * `stopStart`: stopped even where it could be hot.
     */
    'servers:backup': { payload: { name: string; type?: BackupType; stopStart?: boolean }; reply: BackupReply }
    /** The server's backups, newest first. */
    'servers:backups': { payload: { name: string }; reply: BackupFile[] }
    /** Where one of the server's backups is, for a download (only a name `servers:backups` lists). */
    'servers:backup_file': { payload: { name: string; file: string }; reply: BackupFile & { path: string } }
    /** Puts a backup back (the restore action); a running server only with `stopStart`. */
    'servers:restore': {
      payload: { name: string; file: string; stopStart?: boolean }
      reply: { restored: string; safety: string }
    }
    /** Applies retention now, or keeps only `keep` of each kind (the prune_backups action). */
    'servers:prune': { payload: { name: string; keep?: number }; reply: { pruned: string[] } }
    /**
     * Writes the world to an archive (world_export): `file`, or in a directory `<name>.mcworld`
     * (Bedrock) or `<name>.zip`; a running server is copied as a backup is (hot, or stopped with a `warning`).
     */
    'servers:export': {
      payload: { name: string; file: string; stopStart?: boolean }
      reply: { file: string; bytes: number; method: CopyMethod; warning?: string }
    }
    /** Makes a world archive the world (world_import); a running server only with `stopStart`. */
    'servers:import': {
      payload: { name: string; file: string; stopStart?: boolean }
      reply: { imported: string; safety: string | undefined }
    }
    /** The server's settings in effect, or one of them. */
    'servers:get_setting': { payload: { name: string; key?: string }; reply: { value: unknown } }
    /** Every declared setting of the server with where its value comes from (own, inherited, default), and its custom ones. */
    'servers:settings': { payload: { name: string }; reply: ServerSettingView[] }
    /**
     * Sets several per-server settings at once (`null` unsets one), each checked before any is
     * changed; answers them all as `servers:settings` does.
     */
    'servers:set_settings': {
      payload: { name: string; settings: Record<string, unknown> }
      reply: ServerSettingView[]
    }
    /** Sets one per-server setting (`value` undefined unsets it). */
    'servers:set_setting': {
      payload: { name: string; key: string; value: unknown }
      reply: { key: string; value: unknown; previous: unknown }
    }
    /** Adds a schedule (run by the manager while it runs). */
    'servers:schedule_add': {
      payload: { name: string; cron: string; action: string; command?: string; timezone?: string }
      reply: ListedSchedule
    }
    /** The schedules (of one server, or all), with their next run. */
    /** Each with its next run, or, for a stored one that cannot run, `invalid`: why (it is skipped). */
    'servers:schedule_list': { payload: { name?: string }; reply: ListedSchedule[] }
    'servers:schedule_remove': { payload: { id: string }; reply: Schedule }
    /** Creates a server from a Bedrock server zip or directory (the server_install action) and registers it. */
    'servers:install': { payload: { name: string; from: string; dir?: string }; reply: ServerRecord }
    /** Replaces a bedrock server's binaries from a zip, keeping its config and worlds, after a backup. */
    'servers:update': {
      payload: { name: string; from: string; stopStart?: boolean }
      reply: { replaced: string[]; backup: readonly BackupFile[] }
    }
    /**
     * Whether the server's game needs its EULA accepted and whether it is; with `accept`, accepts
     * it (writes eula=true: an admin's explicit act, never done by itself).
     */
    'servers:eula': {
      payload: { name: string; accept?: boolean }
      reply: { needed: boolean; accepted: boolean; file: string; url: string }
    }
    /**
     * Its resource samples over a range (the last hour by default), as its supervisors wrote them
     * (`metrics.jsonl` in its run directory, and the downsampled file for older ones).
     */
    'servers:metrics': {
      payload: SeriesRequest & { name: string }
      reply: SeriesReply<'cpu' | 'cpu_max' | 'rss' | 'rss_max' | 'disk'>
    }
    /** The last lines of its console log, and the file's path (to follow it). */
    'servers:logs': { payload: { name: string; lines?: number }; reply: { file: string; lines: string[] } }
  }
}
