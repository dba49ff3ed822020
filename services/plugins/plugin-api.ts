import type { ActionResult } from '../../kernel'
import type { GameProfile, PlayerList } from '../servers/contract'
import type { CustomEventMeta, DeliveryReport, PluginRecord } from './contract'

export type { GameProfile, HotBackupProtocol, PlayerList, PlayersProtocol, WorldLocation } from '../servers/contract'

/** A listener for a custom event: the sender's payload, and who sent it. */
export type CustomEventListener = (payload: Record<string, unknown>, meta: CustomEventMeta) => unknown

/** One operation of `this.api`, as `listAvailableApis()` describes it. */
export interface ApiDescription {
  readonly name: string
  readonly parameters: readonly { readonly name: string; readonly type: string; readonly default?: string }[]
  readonly description: string
}

/**
 * `this.api`: the plugin's gateway to the manager. Every operation is async and returns plain
 * JSON values; actions return an `ActionResult` instead of throwing. Calls are made on the
 * plugin's behalf (`plugin:<name>` in the event log). No operation returns secrets.
 */
export interface PluginApi {
  /** Sends a custom event `<namespace>:<event>` to every listener; resolves to who got it. */
  sendEvent(name: string, payload?: Record<string, unknown>): Promise<DeliveryReport>
  /**
   * Listens for a custom event; removed automatically when the plugin unloads or reloads.
   * Resolves to a function that stops listening earlier.
   */
  listenForEvent(name: string, listener: CustomEventListener): Promise<() => void>
  /** A global setting's value (`web.port`, `custom.<key>`), or `undefined` when it has none. */
  getGlobalSetting(key: string): Promise<unknown>
  /** Stores `value` under `custom.<key>` (a recorded, vetoable setting change). */
  setCustomGlobalSetting(key: string, value: unknown): Promise<ActionResult>
  /** Every known plugin with its enabled flag, version, author, description and state. */
  getPluginStatuses(): Promise<
    Record<string, Pick<PluginRecord, 'enabled' | 'version' | 'author' | 'description' | 'state'>>
  >
  /** The operations of this API, with their parameters and a one-line description. */
  listAvailableApis(): Promise<ApiDescription[]>
  /** Every registered server with its profile, directory and status now. */
  listServers(): Promise<
    { name: string; profile: string; dir: string; status: ServerStatus; pid: number | undefined }[]
  >
  /**
   * The game profile in effect for a server (its profile's fields, the server's own over them),
   * as plain data: how to tell its players something (`sayCommand`, `{message}` in it), how to
   * know who is online (`players`, regular expressions over console messages), which replies
   * mean a command was refused (`errorLines`), its ready line, stop command, config files, world
   * and hot-backup protocol. Send a game only the commands its profile names.
   */
  getServerProfile(serverName: string): Promise<GameProfile>
  /**
   * Who is online on a running server, as its game's list command answers (a read: no command
   * fact, no hook): `{ online, max, names }`. Rejects with a coded error when it is not running
   * (`SM_ERR_SERVER_NOT_RUNNING`), its profile cannot tell (`SM_ERR_SERVER_PLAYERS_UNKNOWN`) or the
   * reply was not a list (`SM_ERR_SERVER_PLAYERS_UNREADABLE`).
   */
  listPlayers(serverName: string): Promise<PlayerList>
  /** A server's status, and whether its process runs (`starting`, `running` or `stopping`). */
  getServerRunningStatus(serverName: string): Promise<{ status: ServerStatus; running: boolean }>
  /** Starts a server (the server_start action: your own before hooks see it too); resolves once it is up. */
  startServer(serverName: string, mode?: 'detached' | 'direct'): Promise<ActionResult>
  /** Stops a server: its stop command, then SIGTERM, then SIGKILL. */
  stopServer(serverName: string): Promise<ActionResult>
  /** Stops a server if it runs, then starts it. */
  restartServer(serverName: string): Promise<ActionResult>
  /**
   * Sends one console command; the result carries `reply` (the lines the server answered), also
   * when the game refused it (`status: 'error'`, `code: 'SM_ERR_SERVER_COMMAND_REFUSED'`).
   */
  sendCommand(serverName: string, command: string): Promise<ActionResult>
  /** A server's setting in effect (`autostart`, `restart.max_restarts`, `custom.<key>`, ...), or undefined. */
  getServerSetting(serverName: string, key: string): Promise<unknown>
  /** Stores `value` under the server's `custom.<key>` (recorded as a fact). */
  setServerCustomValue(serverName: string, key: string, value: unknown): Promise<ActionResult>
  /**
   * Backs up a server's world, as every backup is: a running server hot where its profile can
   * (unless `stopStartServer`), else stopped and started again (the result's `warning` says so).
   */
  backupWorld(serverName: string, options?: { stopStartServer?: boolean }): Promise<ActionResult>
  /** Backs up a server's world and config. */
  backupAll(serverName: string, options?: { stopStartServer?: boolean }): Promise<ActionResult>
  /** Puts a world or config backup (a name from `listBackups`) back; a running server only with `stopStartServer`. */
  restoreWorld(serverName: string, file: string, options?: { stopStartServer?: boolean }): Promise<ActionResult>
  /** A server's backups, newest first: `{ file, kind, bytes, createdAt }`. */
  listBackups(
    serverName: string,
  ): Promise<{ file: string; kind: 'world' | 'config'; bytes: number; createdAt: string }[]>
  /**
   * Runs long work as a tracked task (listed by `server-manager tasks`, recorded as facts) and
   * resolves to its id at once. `fn` gets `{ id, signal, progress(percent, message) }`: report
   * progress, and stop when `signal` is aborted (`tasks cancel <id>`).
   */
  runTask(
    name: string,
    fn: (task: {
      id: string
      signal: AbortSignal
      progress(percent: number | undefined, message?: string): void
    }) => Promise<unknown>,
  ): Promise<{ taskId: string }>
  /** Applies the backup retention now (or keeps `keep` of each kind). */
  pruneBackups(serverName: string, keep?: number): Promise<ActionResult>
}

/** A game server's status (services/servers). */
export type ServerStatus = 'stopped' | 'starting' | 'running' | 'stopping' | 'crashed' | 'error'
