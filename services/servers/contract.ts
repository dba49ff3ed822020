/**
 * The servers service's contract on the bus: its commands and events as schemas, and the records
 * they carry (a server, its profile, its status, its backups, ...), whose types come from them.
 */
import { z } from 'zod'
import { type CommandsOf, command, defineCommands, defineEvents, type EventsOf, empty } from '../../kernel'
import { PIECE_BYTES } from '../../lib/pieces'
import { seriesReply, seriesRequest } from '../../lib/series-schema'

/** A server's run held by this process (`server start --direct`): the game stops when the hold ends. */
export interface HeldRun {
  /** The console's last lines when the hold began (lines after them go to `onLine`). */
  readonly tail: readonly string[]
  /** Settles when the supervisor's connection ends: the game has stopped, or this process let go. */
  readonly ended: Promise<void>
}

/** What a holder is told while it holds a run. */
export interface RunHandlers {
  onLine(line: string): void
  onStatus(entry: { status: ServerStatus; reason?: string }): void
}

/** The statuses in which a server's game runs: starting, running, stopping. */
export const ACTIVE: readonly ServerStatus[] = ['starting', 'running', 'stopping']
/** The names of the game profiles (bedrock, java, generic). */
export const PROFILE_NAMES = ['bedrock', 'java', 'generic'] as const
/** Which fields of a server's samples keep their peak when they are downsampled. */
export const SERVER_PEAKS = ['cpu', 'rss'] as const
/** The fields of a server's stored samples. */
export const SERVER_FIELDS = ['cpu', 'rss', 'disk'] as const

/** A server's run state as its supervisor (or whoever found it) last wrote it. */
export const serverStatus = z.enum(['stopped', 'starting', 'running', 'stopping', 'crashed', 'error'])
export type ServerStatus = z.output<typeof serverStatus>

export const startMode = z.enum(['detached', 'direct'])
export type StartMode = z.output<typeof startMode>

/**
 * How a server is run: `bedrock` (a Bedrock Dedicated Server directory), `java` (a Minecraft Java
 * Edition server jar) or `generic` (any console program); profiles.ts says what each knows.
 */
const profileName = z.enum(PROFILE_NAMES)
export type ProfileName = z.output<typeof profileName>
export type ServerProfile = ProfileName

const strings = z.array(z.string()).readonly()

/** How a game tells who is online, and who joins and leaves (regular expressions over console messages). */
const playersProtocol = z
  .object({
    /** The console command that lists who is online. */
    listCommand: z.string(),
    /** Its reply's first line: groups `online` and `max`, and `names` when the names are on the same line. */
    listReply: z.string(),
    /** A join line: group `name`, and `id` (xuid, UUID) where the game prints it. */
    join: z.string().optional(),
    /** A leave line: group `name`, and `id` where the game prints it. */
    leave: z.string().optional(),
    /**
     * A line that names a player's id before they join (groups `name` and `id`): Java prints the
     * UUID on its own line (`UUID of player Steve is …`, in online mode), not in `joined the game`.
     */
    identify: z.string().optional(),
  })
  .readonly()
export type PlayersProtocol = z.output<typeof playersProtocol>

/**
 * How a game is backed up while it runs: Bedrock's `save hold` / `save query` / `save resume`
 * (the game lists the files and their lengths to copy), or console commands around a copy of
 * the whole world: `off` stops the game writing, `flush` writes what it holds, `on` resumes.
 * `done` is the console message that says the flush has ended (a regular expression: java's
 * `^Saved the game`): the world is copied only once it came. Commands without it cannot tell,
 * and a running server with them is backed up stopped (backups.ts).
 */
const hotBackupProtocol = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bedrock') }).readonly(),
  z
    .object({ kind: z.literal('commands'), off: strings, flush: strings, on: strings, done: z.string().optional() })
    .readonly(),
])
export type HotBackupProtocol = z.output<typeof hotBackupProtocol>

/**
 * A list of players a game keeps in a JSON file of its directory: who may join (the allowlist)
 * or who is an operator. While the game runs, `add` and `remove` go to its console where it has
 * them (it resolves the name and writes its file); otherwise the manager edits the file
 * (atomically) and, while it runs, sends `reload`. Each entry of the file is an object:
 * `name` (where `named`), the player's id under `idField`, and `fields`.
 */
const accessListProtocol = z
  .object({
    /** The JSON file (an array of objects), relative to the server directory. */
    file: z.string(),
    /** The field that holds a player's id: Bedrock's `xuid`, Java's `uuid`. */
    idField: z.string(),
    /** Whether entries name the player (Bedrock's permissions.json has only xuids). */
    named: z.boolean(),
    /** Whether an entry needs the id: the manager takes it from the player history, or refuses. */
    idRequired: z.boolean(),
    /** Written with every new entry; those named in `match` must be on an entry for it to count. */
    fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).readonly(),
    match: strings,
    /** Console commands while the game runs: `{name}` is the player's name (quoted when it holds a space). */
    add: z.string().optional(),
    remove: z.string().optional(),
    /** The console command that makes a running game read the file again after the manager edited it. */
    reload: z.string().optional(),
    /** Reply messages that mean there was nothing to do (already on the list, or not on it). */
    unchanged: strings,
  })
  .readonly()
export type AccessListProtocol = z.output<typeof accessListProtocol>

/** Where a game's world is: a directory, or one a properties file names (`level-name`). */
const worldLocation = z.union([
  z.object({ dir: z.string() }).readonly(),
  z.object({ property: z.string(), file: z.string(), parent: z.string(), fallback: z.string() }).readonly(),
])
export type WorldLocation = z.output<typeof worldLocation>

const gameProfile = z.object({
  name: profileName,
  /**
   * The console message that says the game is ready (a regular expression); none: it is running
   * once its process exists. Until then its status is `starting`, and a start waits for it.
   */
  readyLine: z.string().optional(),
  /** The console command that stops it. */
  stopCommand: z.string(),
  /**
   * A console line's message without its prefix (time stamp, thread, level): a regular
   * expression whose first group is the message. Lines that do not match are messages whole.
   */
  messagePattern: z.string().optional(),
  /** Reply messages that mean the command sent was refused (regular expressions). */
  errorLines: strings,
  /**
   * A player's chat message (a regular expression over console messages: java's `<name> text`
   * and `[Not Secure] <name> text`): never part of a command's reply, never one of its errors.
   */
  chatLine: z.string().optional(),
  /** How to tell every player something: `say {message}`; none when the game cannot. */
  sayCommand: z.string().optional(),
  players: playersProtocol.optional(),
  /** Who may join (Bedrock's allowlist.json, Java's whitelist.json); none: the profile does not know. */
  allowlist: accessListProtocol.optional(),
  /** Who is an operator (Bedrock's permissions.json, Java's ops.json); none: the profile does not know. */
  operators: accessListProtocol.optional(),
  /** Config files (relative to the server directory): config backups hold them, the editor edits them. */
  configFiles: strings,
  world: worldLocation.optional(),
  hotBackup: hotBackupProtocol.optional(),
  /**
   * What a world of this game has at its top (`db/`: a directory): an archive holding none of
   * them is refused by a restore or an import. None: any archive is taken.
   */
  worldMarkers: strings,
  /** The file name extension of a world archive: `mcworld` for Bedrock (importable by the game), else `zip`. */
  worldArchive: z.enum(['mcworld', 'zip']),
  /**
   * The game runs only once its EULA is accepted in `eula.txt` (`eula=true`). The manager never
   * accepts it by itself: an admin does (`server eula <name> --accept`), and a start is refused until then.
   */
  eula: z.boolean(),
  /**
   * Commands whose reply the profile knows: the reply is complete once a message matches `done`
   * and `extraLines` more lines came (a command may have several entries, one per outcome).
   * Other replies are complete when the console has been quiet for a moment.
   */
  replies: z
    .array(z.object({ command: z.string(), done: z.string(), extraLines: z.number().int().optional() }).readonly())
    .readonly(),
})
/**
 * Game profiles: what the manager knows about a kind of game server, as plain data (it travels
 * in server records, in the supervisor's run spec, and in messages); profiles.ts has the built-in ones.
 */
export type GameProfile = Readonly<z.output<typeof gameProfile>>

/** What a server's record may set over its profile (`server add` flags). */
const profileFields = z.object({
  profile: profileName,
  stopCommand: z.string(),
  worldDir: z.string().optional(),
  readyLine: z.string().optional(),
  sayCommand: z.string().optional(),
  configFiles: strings.optional(),
  /** The hot-backup commands: `off`, `flush` and `on`, each one or more console commands. */
  hotBackup: z.object({ off: strings, flush: strings, on: strings }).readonly().optional(),
  /** The message that says the hot backup's flush has ended (over the profile's own). */
  hotBackupDone: z.string().optional(),
  errorLines: strings.optional(),
  /** A player's chat message (over the profile's own). */
  chatLine: z.string().optional(),
})
export type ProfileFields = Readonly<z.output<typeof profileFields>>

/** One registered server (`server add`); its profile's fields it does not set come from the profile (profiles.ts). */
const serverRecordFields = profileFields.extend({
  name: z.string(),
  /** The server's directory (absolute). */
  dir: z.string(),
  /** The executable, relative to `dir` or absolute (`./bedrock_server` for bedrock). */
  command: z.string(),
  args: strings,
  /** Extra environment (bedrock gets `LD_LIBRARY_PATH=.` when it starts). */
  env: z.record(z.string(), z.string()).readonly(),
  /** The console line that asks it to stop. */
  stopCommand: z.string(),
  /** The world directory relative to `dir`; for bedrock it follows `level-name` in server.properties. */
  worldDir: z.string().optional(),
  /** ISO time it was added. */
  addedAt: z.string(),
  /** Its own settings (`autostart`, `restart.*`, `backup.*`, `custom.*`); unset ones inherit (server-settings.ts). */
  settings: z.record(z.string(), z.unknown()).readonly().optional(),
  /** The host agent it lives on (`server add --host`); absent: this machine. */
  host: z.string().optional(),
})
const serverRecord = serverRecordFields.readonly()
export type ServerRecord = z.output<typeof serverRecord>

const addServer = z.object({
  name: z.string(),
  dir: z.string(),
  /** Detected when not given: bedrock with a bedrock_server, java with a server jar, else generic. */
  profile: profileName.optional(),
  command: z.string().optional(),
  args: strings.optional(),
  env: z.record(z.string(), z.string()).readonly().optional(),
  stopCommand: z.string().optional(),
  worldDir: z.string().optional(),
  /** The console message that says it is ready (a regular expression). */
  readyLine: z.string().optional(),
  /** How to tell players something: `say {message}`. */
  sayCommand: z.string().optional(),
  /** Its config files, relative to its directory. */
  configFiles: strings.optional(),
  /** Its hot-backup commands: `off;flush;on` (`save-off;save-all flush;save-on`). */
  hotBackup: z.string().optional(),
  /** The message that says the flush has ended (a regular expression: `^Saved the game`). */
  hotBackupDone: z.string().optional(),
  /** Reply messages that mean a command was refused (regular expressions). */
  errorLines: strings.optional(),
  /** A player's chat message (a regular expression): never a reply. */
  chatLine: z.string().optional(),
  /** The host agent to add it on (its directory is on that machine); absent: this machine. */
  host: z.string().optional(),
})
export type AddServer = Readonly<z.output<typeof addServer>>

/** The fields of a server's record an edit may change (`server edit`): how it runs, and its profile fields. */
export const EDITABLE_FIELDS = [
  'command',
  'args',
  'env',
  'worldDir',
  'readyLine',
  'errorLines',
  'chatLine',
  'stopCommand',
  'sayCommand',
  'configFiles',
  'hotBackup',
  'hotBackupDone',
] as const
export type EditableField = (typeof EDITABLE_FIELDS)[number]

/**
 * A change of a server's record: each field given is set (checked as `server add` checks it);
 * `null` clears one, so its profile's applies again (`command`, `args`, `env` and `stopCommand`
 * cannot be cleared). Fields not given stay as they are.
 */
const editServer = z.object({
  name: z.string(),
  command: z.string().optional(),
  args: strings.optional(),
  env: z.record(z.string(), z.string()).readonly().optional(),
  stopCommand: z.string().optional(),
  worldDir: z.string().nullable().optional(),
  readyLine: z.string().nullable().optional(),
  errorLines: strings.nullable().optional(),
  chatLine: z.string().nullable().optional(),
  sayCommand: z.string().nullable().optional(),
  configFiles: strings.nullable().optional(),
  /** `off;flush;on`, as `server add --hot-backup` takes it. */
  hotBackup: z.string().nullable().optional(),
  hotBackupDone: z.string().nullable().optional(),
})
export type EditServer = Readonly<z.output<typeof editServer>>

/**
 * What a game used when its supervisor last looked (supervisor/sampler.ts): CPU as % of one core
 * (0 to 100 × cores), resident memory and its directory's size on disk in bytes, and how long it
 * has run. The game's own process and those its main thread started (a start script's game).
 */
const serverSample = z.object({
  /** When, in ms since the epoch. */
  t: z.number(),
  cpu: z.number(),
  rss: z.number(),
  /** Its directory on disk (walked every `metrics.disk_interval_s`; absent until the first walk ends). */
  disk: z.number().optional(),
  uptime_s: z.number(),
})
export type ServerSample = Readonly<z.output<typeof serverSample>>

/** What `status` answers (and what a server's status reads as when nobody supervises it). */
const runStatus = z.object({
  status: serverStatus,
  since: z.string(),
  /** The game process, while there is one. */
  pid: z.number().int().optional(),
  startedAt: z.string().optional(),
  supervisorPid: z.number().int().optional(),
  /** The game outlived a supervisor and this one took it over (its exit code cannot be known). */
  adopted: z.boolean(),
  mode: startMode,
  restarts: z.number().int(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  reason: z.string().optional(),
  /** The supervisor's last resource sample of the game, while it runs with sampling on. */
  metrics: serverSample.optional(),
})
export type RunStatus = Readonly<z.output<typeof runStatus>>

const sendReply = z.object({
  sent: z.literal(true),
  /** The reply lines, where the profile knows the command's reply (or what arrived shortly after). */
  reply: strings,
  /** The command was sent but its after_command_send fact could not be recorded (a full disk): what to tell. */
  warning: z.string().optional(),
})
export type SendReply = Readonly<z.output<typeof sendReply>>

const exitReply = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Whether the stop command was not enough: `SIGTERM`, then `SIGKILL`. */
  escalated: z.enum(['SIGTERM', 'SIGKILL']).optional(),
})
export type ExitReply = Readonly<z.output<typeof exitReply>>

/** What a start answers once the server is up. */
const startReply = z.object({ status: serverStatus, pid: z.number().int().optional(), mode: startMode })
export type StartReply = Readonly<z.output<typeof startReply>>

/** Who is online on a server, as its game's list command answers it. */
const playerList = z.object({
  online: z.number().int(),
  /** The most players the game takes, when it said. */
  max: z.number().int().optional(),
  names: strings,
})
export type PlayerList = Readonly<z.output<typeof playerList>>

/** A server as `server list` shows it: its record and its status now. */
const serverSummary = serverRecordFields
  .extend({
    /** `unknown`: it lives on a host that is offline (since `since`); its last known status is not current. */
    status: z.union([serverStatus, z.literal('unknown')]),
    /** Since when its status is unknown. */
    since: z.string().optional(),
    pid: z.number().int().optional(),
    /** How many players are online, while a manager follows it running and knows (its player tracker). */
    players: z.number().int().optional(),
    /** Its supervisor's last resource sample, while it runs with sampling on. */
    metrics: serverSample.optional(),
  })
  .readonly()
export type ServerSummary = z.output<typeof serverSummary>

/** A server's status, with who is online while a manager follows it running and knows. */
const serverRunStatus = runStatus.extend({ players: playerList.optional() })
export type ServerRunStatus = Readonly<z.output<typeof serverRunStatus>>

/** A server as `server info` shows it: its record plus what its directory says now. */
const serverInfo = serverRecordFields
  .extend({
    /** The world directory in effect (absolute), when there is one. */
    world: z.string().optional(),
    dirExists: z.boolean(),
  })
  .readonly()
export type ServerInfo = z.output<typeof serverInfo>

/** One player of one server, as the history knows them from the join and leave facts. */
const playerRecord = z.object({
  name: z.string(),
  /** The last id the game printed for them (Bedrock's xuid, Java's UUID), when it printed one. */
  id: z.string().optional(),
  /** ISO times of their first and latest join or leave. */
  firstSeen: z.string(),
  lastSeen: z.string(),
  joins: z.number().int(),
  /** Time online in milliseconds, the session under way included up to the read. */
  playedMs: z.number(),
  online: z.boolean(),
  /** When the session under way began (online players only). */
  onlineSince: z.string().optional(),
})
export type PlayerRecord = Readonly<z.output<typeof playerRecord>>

/** The lists of players a game keeps: who may join, and who is an operator. */
export const ACCESS_LISTS = ['allowlist', 'operators'] as const
const accessListName = z.enum(ACCESS_LISTS)
export type AccessListName = z.output<typeof accessListName>

/** One player on a list: the file's name, or the player history's for a file of ids only. */
const accessEntry = z.object({
  name: z.string().optional(),
  /** The player's id on the list (xuid, UUID), when the file has one. */
  id: z.string().optional(),
})
export type AccessEntry = Readonly<z.output<typeof accessEntry>>

/** What an allowlist or operators change did. */
const accessChange = z.object({
  message: z.string(),
  /** False when there was nothing to do: already on the list, or not on it. */
  changed: z.boolean(),
  /** The game's console did it (the server runs), or the manager edited the file. */
  via: z.enum(['console', 'file']),
  /** The list after the change. */
  players: z.array(accessEntry),
  /** Done, with something to know: the running game refused to reload the edited file. */
  warning: z.string().optional(),
})
export type AccessChange = Readonly<z.output<typeof accessChange>>

const backupKind = z.enum(['world', 'config'])
export type BackupKind = z.output<typeof backupKind>
const backupType = z.enum(['world', 'config', 'all'])
export type BackupType = z.output<typeof backupType>

/** One archive in a server's backup folder. */
const backupFile = z.object({ file: z.string(), kind: backupKind, bytes: z.number(), createdAt: z.string() })
export type BackupFile = Readonly<z.output<typeof backupFile>>

/** A part of an `all` backup the server does not have (no world directory, no config file). */
const backupSkip = z.object({
  kind: backupKind,
  /** What is missing, as a sentence: `the server 'lobby' has no config files (server.properties)`. */
  reason: z.string(),
})
export type BackupSkip = Readonly<z.output<typeof backupSkip>>

/** How a world was copied: `hot` (the server kept running), `stop-start` or `cold` (it was not running). */
const copyMethod = z.enum(['hot', 'stop-start', 'cold'])
export type CopyMethod = z.output<typeof copyMethod>

const backupReply = z.object({
  files: z.array(backupFile).readonly(),
  method: copyMethod,
  /** What retention removed after this backup. */
  pruned: strings,
  /** The parts of an `all` backup that the server does not have; always empty for `world` or `config`. */
  skipped: z.array(backupSkip).readonly(),
  /** Said when a running server was stopped for it: its profile has no hot backup, or it was still starting. */
  warning: z.string().optional(),
})
export type BackupReply = Readonly<z.output<typeof backupReply>>

const scheduleAction = z.enum(['backup', 'restart', 'command'])
export type ScheduleAction = z.output<typeof scheduleAction>

/** A recurring job on one server, run by the manager (`server schedule add`). */
const scheduleFields = z.object({
  id: z.string(),
  server: z.string(),
  /** A cron expression (5 fields, or 6 with seconds first), in the manager's time zone unless `timezone`. */
  cron: z.string(),
  action: scheduleAction,
  /** The console command, for `command`. */
  command: z.string().optional(),
  timezone: z.string().optional(),
  addedAt: z.string(),
})
const schedule = scheduleFields.readonly()
export type Schedule = z.output<typeof schedule>

/** A schedule as `schedule list` shows it: when it runs next, or why it cannot run. */
const listedSchedule = scheduleFields
  .extend({
    nextRun: z.string().optional(),
    /** Why this stored schedule cannot run (recorded before its check existed, or its zone is gone); it is skipped. */
    invalid: z.string().optional(),
  })
  .readonly()
export type ListedSchedule = z.output<typeof listedSchedule>

/** One setting of a server as a form shows it: its value in effect, and where that comes from. */
const serverSettingView = z.object({
  key: z.string(),
  /** None: it has no value (no default, nothing inherited). */
  value: z.unknown().optional(),
  /** Whether the server has a value of its own (else it inherits, or has its default). */
  own: z.boolean(),
  /** The global setting it follows while it has none of its own. */
  inherits: z.string().optional(),
  summary: z.string(),
  /** What its values are: `boolean`, `integer`, or `json` (a plugin's value). */
  kind: z.enum(['boolean', 'integer', 'json']),
})
export type ServerSettingView = Readonly<z.output<typeof serverSettingView>>

/** The result every action answers with (the `result` of its `after_*` event). */
const actionResult = z.looseObject({
  status: z.enum(['success', 'error', 'cancelled']),
  message: z.string().optional(),
})

const named = z.object({ name: z.string() })
const nameAndFile = named.extend({ file: z.string(), stopStart: z.boolean().optional() })

export const serversEvents = defineEvents(
  'servers',
  {
    'servers:added': z.object({ server: serverRecord }),
    'servers:removed': z.object({
      name: z.string(),
      filesDeleted: z.boolean(),
      /** The host whose server this manager forgot (`server remove --forget`): there it stays. */
      forgotten: z.string().optional(),
    }),
    /** An admin accepted the game's EULA for the server (eula.txt now says eula=true). */
    'servers:eula_accepted': z.object({ serverName: z.string() }),
    /**
     * A server's record was changed (`server edit`): each field of `changes` set, a `null` one
     * cleared (its profile's applies again).
     */
    'servers:edited': z.object({ name: z.string(), changes: z.record(z.string(), z.unknown()) }),
    /** One backup of the server was deleted (`server backup-delete`). */
    'servers:backup_deleted': z.object({ name: z.string(), file: z.string() }),
    /** A per-server setting was set (`value` undefined: unset, it inherits again). */
    'servers:setting_changed': z.object({ name: z.string(), key: z.string(), value: z.unknown().optional() }),
    'servers:schedule_added': z.object({ schedule }),
    'servers:schedule_removed': z.object({ id: z.string(), server: z.string() }),
    /** A schedule ran (in the manager), with how it went. */
    'servers:schedule_ran': z.object({
      id: z.string(),
      server: z.string(),
      action: z.string(),
      result: z.object({
        status: z.enum(['success', 'error']),
        message: z.string().optional(),
        code: z.string().optional(),
      }),
    }),
    /**
     * A resource sample a followed server's supervisor took (in the manager, live; not recorded:
     * samples are a rolling series in its run directory), with who is online when the manager knows.
     */
    'servers:sampled': z.object({
      serverName: z.string(),
      sample: serverSample,
      players: z.object({ online: z.number().int(), max: z.number().int().optional() }).optional(),
    }),
    /** A line a running server wrote to its console (in the manager, live; not recorded). */
    'servers:console': z.object({ serverName: z.string(), line: z.string() }),
    /** Progress of a backup, restore or export (at most one per percent; not recorded). */
    'servers:backup_progress': z.object({
      serverName: z.string(),
      operation: z.enum(['backup', 'restore', 'export']),
      file: z.string(),
      bytes: z.number(),
      totalBytes: z.number(),
      files: z.number().int(),
      totalFiles: z.number().int(),
      percent: z.number(),
    }),
  },
  {
    'servers:added': 'server_added', // formerly
    'servers:removed': 'server_removed', // formerly
    'servers:eula_accepted': 'server_eula_accepted', // formerly
    'servers:setting_changed': 'server_setting_changed', // formerly
    'servers:schedule_added': 'schedule_added', // formerly
    'servers:schedule_removed': 'schedule_removed', // formerly
    'servers:schedule_ran': 'schedule_ran', // formerly
    'servers:sampled': 'server_metrics', // formerly
    'servers:console': 'server_console', // formerly
    'servers:backup_progress': 'backup_progress', // formerly
  },
)

/** The host agent of this data directory (services/servers/supervisor/agent.ts), when one serves. */
const agentStatus = z.object({
  running: z.boolean(),
  dataDir: z.string(),
  pid: z.number().optional(),
  startedAt: z.string().optional(),
  node: z.string().optional(),
  version: z.string().optional(),
  /** Its own resident memory, in bytes (the games' are their own). */
  rss: z.number().optional(),
  runs: z
    .array(z.object({ server: z.string(), status: serverStatus }))
    .readonly()
    .optional(),
})

export const serversCommands = defineCommands('servers', {
  /** The host agent that supervises this data directory's games: its PID, since when, memory, the runs it supervises (never starts one). */
  'servers:agent': command(empty, agentStatus),
  /** Adopts an existing directory as a server (profile detected: bedrock when it holds bedrock_server). */
  'servers:add': command(addServer, serverRecord),
  /**
   * Changes a server's record after it was added: how it runs and its profile fields, checked as
   * `servers:add` checks them (a `servers:edited` fact). A running game takes the change at its
   * next start; backups and replies read it at once.
   */
  'servers:edit': command(editServer, z.object({ server: serverRecord, changed: z.array(z.string()) })),
  'servers:list': command(empty, z.array(serverSummary)),
  'servers:info': command(named, serverInfo),
  /** The game profile in effect for the server: its profile's fields, the server's own over them (plain data). */
  'servers:profile': command(named, gameProfile),
  /** Forgets a server; with `deleteFiles`, deletes its directory too (the delete_server_data action). */
  /**
   * Removes a stopped server (`deleteFiles`: its directory too). `forget`: a server on another
   * host is removed from this manager only, its host not asked (a host retired or gone for good):
   * on that machine it and its files stay as they are.
   */
  'servers:remove': command(
    named.extend({ deleteFiles: z.boolean().optional(), forget: z.boolean().optional() }),
    actionResult,
  ),
  /** The server's server.properties as key → value, in file order. */
  'servers:properties': command(named, z.record(z.string(), z.string())),
  /** Changes keys of server.properties (the properties_change action), keeping comments and order. */
  'servers:set_properties': command(
    named.extend({ properties: z.record(z.string(), z.string()) }),
    z.object({ changed: z.record(z.string(), z.object({ from: z.string().optional(), to: z.string() })) }),
  ),
  /**
   * The server's status now (its process identity checked, not just its PID), with who is
   * online when the manager's player tracker knows (a manager runs and follows it).
   */
  'servers:status': command(named, serverRunStatus),
  /**
   * Who is online: its profile's list command, asked live and not as a command_send action
   * (SM_ERR_SERVER_PLAYERS_UNKNOWN when its profile cannot tell).
   */
  'servers:players': command(named, playerList),
  /**
   * Everyone who joined the server while a manager followed it (the player_history projection):
   * name, last id, first and last seen, joins, time played, online now; the latest seen first.
   */
  'servers:player_history': command(named, z.array(playerRecord)),
  /**
   * The server's allowlist or operators as its file says (SM_ERR_SERVER_ACCESS_UNKNOWN when its
   * profile knows none); names come from the player history where the file has only ids.
   */
  'servers:access_list': command(named.extend({ list: accessListName }), z.array(accessEntry)),
  /**
   * Adds a player to the allowlist or operators, or removes them (the allowlist_change or
   * operator_change action): by the console while the game runs, else by editing the file.
   */
  'servers:access_change': command(
    named.extend({ list: accessListName, change: z.enum(['add', 'remove']), player: z.string() }),
    accessChange,
  ),
  /** Starts it (the server_start action); answers once it is up. */
  'servers:start': command(named.extend({ mode: startMode.optional() }), startReply),
  /**
   * Begins long work on a server as a task and answers at once with its id (the web API's
   * 202): its progress and result come as tasks:progress and tasks:finished.
   */
  'servers:begin': command(
    z.discriminatedUnion('action', [
      named.extend({ action: z.enum(['start', 'stop', 'restart']) }),
      named.extend({ action: z.literal('backup'), type: backupType.optional(), stopStart: z.boolean().optional() }),
      nameAndFile.extend({ action: z.literal('restore') }),
    ]),
    z.object({ taskId: z.string() }),
  ),
  /** Stops it (the server_stop action): the stop command, then SIGTERM, then SIGKILL. */
  'servers:stop': command(named, exitReply),
  /** Stops it if it runs, then starts it (both actions fire). */
  'servers:restart': command(named, startReply),
  /** SIGKILL now, whatever power action is in progress. */
  'servers:kill': command(named, exitReply),
  /** Sends one console command (the command_send action), with the reply lines where they are known. */
  'servers:send': command(named.extend({ command: z.string() }), sendReply),
  /**
   * Backs up the world, config or both (the backup action); retention applies after. A running
   * server hot where its profile can, else stopped and started again with a `warning`;
   * `stopStart`: stopped even where it could be hot.
   */
  'servers:backup': command(
    named.extend({ type: backupType.optional(), stopStart: z.boolean().optional() }),
    backupReply,
  ),
  /** The server's backups, newest first. */
  'servers:backups': command(named, z.array(backupFile)),
  /** Deletes one of the server's backups (only a name `servers:backups` lists; a `servers:backup_deleted` fact). */
  'servers:delete_backup': command(named.extend({ file: z.string() }), z.object({ deleted: z.string() })),
  /** Where one of the server's backups is, for a download (only a name `servers:backups` lists). */
  'servers:backup_file': command(
    named.extend({ file: z.string() }),
    backupFile.extend({
      path: z.string(),
      /** The server is on another host: `path` is there; read it with servers:backup_bytes. */
      host: z.string().optional(),
    }),
  ),
  /** Up to PIECE_BYTES of one of the server's backups, from `offset` (a download of a server on another host). */
  'servers:backup_bytes': command(
    named.extend({
      file: z.string(),
      offset: z.number().int().min(0),
      length: z.number().int().min(1).max(PIECE_BYTES),
    }),
    z.object({ data: z.string(), eof: z.boolean() }),
  ),
  /** Puts a backup back (the restore action); a running server only with `stopStart`. */
  'servers:restore': command(nameAndFile, z.object({ restored: z.string(), safety: z.string() })),
  /** Applies retention now, or keeps only `keep` of each kind (the prune_backups action). */
  'servers:prune': command(
    named.extend({ keep: z.number().int().optional() }),
    z.object({ pruned: z.array(z.string()) }),
  ),
  /**
   * Writes the world to an archive (world_export): `file`, or in a directory `<name>.mcworld`
   * (Bedrock) or `<name>.zip`; a running server is copied as a backup is (hot, or stopped with a `warning`).
   */
  'servers:export': command(
    nameAndFile,
    z.object({ file: z.string(), bytes: z.number(), method: copyMethod, warning: z.string().optional() }),
  ),
  /** Makes a world archive the world (world_import); a running server only with `stopStart`. */
  'servers:import': command(nameAndFile, z.object({ imported: z.string(), safety: z.string().optional() })),
  /** The server's settings in effect, or one of them. */
  'servers:get_setting': command(
    named.extend({ key: z.string().optional() }),
    z.object({ value: z.unknown().optional() }),
  ),
  /** Every declared setting of the server with where its value comes from (own, inherited, default), and its custom ones. */
  'servers:settings': command(named, z.array(serverSettingView)),
  /**
   * Sets several per-server settings at once (`null` unsets one), each checked before any is
   * changed; answers them all as `servers:settings` does.
   */
  'servers:set_settings': command(
    named.extend({ settings: z.record(z.string(), z.unknown()) }),
    z.array(serverSettingView),
  ),
  /** Sets one per-server setting (`value` undefined unsets it). */
  'servers:set_setting': command(
    named.extend({ key: z.string(), value: z.unknown().optional() }),
    z.object({ key: z.string(), value: z.unknown().optional(), previous: z.unknown().optional() }),
  ),
  /** Adds a schedule (run by the manager while it runs). */
  'servers:schedule_add': command(
    named.extend({
      cron: z.string(),
      action: z.string(),
      command: z.string().optional(),
      timezone: z.string().optional(),
    }),
    listedSchedule,
  ),
  /**
   * The schedules (of one server, or all), each with its next run, or, for a stored one that
   * cannot run, `invalid`: why (it is skipped).
   */
  'servers:schedule_list': command(z.object({ name: z.string().optional() }), z.array(listedSchedule)),
  'servers:schedule_remove': command(z.object({ id: z.string() }), schedule),
  /** Creates a server from a Bedrock server zip or directory (the server_install action) and registers it. */
  'servers:install': command(
    named.extend({ from: z.string(), dir: z.string().optional(), host: z.string().optional() }),
    serverRecord,
  ),
  /** Replaces a bedrock server's binaries from a zip, keeping its config and worlds, after a backup. */
  'servers:update': command(
    named.extend({ from: z.string(), stopStart: z.boolean().optional() }),
    z.object({ replaced: z.array(z.string()), backup: z.array(backupFile).readonly() }),
  ),
  /**
   * Whether the server's game needs its EULA accepted and whether it is; with `accept`, accepts
   * it (writes eula=true: an admin's explicit act, never done by itself).
   */
  'servers:eula': command(
    named.extend({ accept: z.boolean().optional() }),
    z.object({ needed: z.boolean(), accepted: z.boolean(), file: z.string(), url: z.string() }),
  ),
  /**
   * Its resource samples over a range (the last hour by default), as its supervisors wrote them
   * (`metrics.jsonl` in its run directory, and the downsampled file for older ones): from and to
   * in ms since the epoch, and a step in seconds (0 or none: as stored, averaged only past 1000
   * points). The reply's columns: `t` (ms) and one per field, null where a point lacks it.
   */
  'servers:metrics': command(named.extend(seriesRequest.shape), seriesReply(SERVER_FIELDS, SERVER_PEAKS)),
  /** The last lines of its console log, and the file's path (to follow it). */
  'servers:logs': command(
    named.extend({ lines: z.number().int().optional() }),
    z.object({ file: z.string(), lines: z.array(z.string()) }),
  ),
})

declare module '../../kernel/maps' {
  interface EventMap extends EventsOf<typeof serversEvents> {}

  interface CommandMap extends CommandsOf<typeof serversCommands> {}
}
