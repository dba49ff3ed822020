/** The servers contract's records: a server, its profile, its status and what its commands answer. */
import { z } from 'zod'
import { command, empty, type HttpDoor, queryFlag } from '../../../kernel'
import { PROFILE_NAMES } from './constants'

/** A server's run state as its supervisor (or whoever found it) last wrote it. */
export const serverStatus = z.enum(['stopped', 'starting', 'running', 'stopping', 'crashed', 'error'])
export type ServerStatus = z.output<typeof serverStatus>

export const startMode = z.enum(['detached', 'direct'])
export type StartMode = z.output<typeof startMode>

/**
 * How a server is run: `bedrock` (a Bedrock Dedicated Server directory), `java` (a Minecraft Java
 * Edition server jar) or `generic` (any console program); profiles.ts says what each knows.
 */
export const profileName = z.enum(PROFILE_NAMES)
export type ProfileName = z.output<typeof profileName>
export type ServerProfile = ProfileName

export const strings = z.array(z.string()).readonly()

/** How a game tells who is online, and who joins and leaves (regular expressions over console messages). */
export const playersProtocol = z
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
export const hotBackupProtocol = z.discriminatedUnion('kind', [
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
export const accessListProtocol = z
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
export const worldLocation = z.union([
  z.object({ dir: z.string() }).readonly(),
  z.object({ property: z.string(), file: z.string(), parent: z.string(), fallback: z.string() }).readonly(),
])
export type WorldLocation = z.output<typeof worldLocation>

export const gameProfile = z.object({
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
export const profileFields = z.object({
  profile: profileName,
  stopCommand: z.string(),
  worldDir: z.string().optional(),
  readyLine: z.string().optional().meta({
    description: "the console message that says it is ready (over its profile's)",
  }),
  sayCommand: z.string().optional(),
  configFiles: strings.optional(),
  /** The hot-backup commands: `off`, `flush` and `on`, each one or more console commands. */
  hotBackup: z.object({ off: strings, flush: strings, on: strings }).readonly().optional(),
  hotBackupDone: z.string().optional().meta({ description: 'the console message that says the flush is done' }),
  errorLines: strings.optional(),
  chatLine: z.string().optional().meta({ description: "a player's chat message (over its profile's)" }),
})
export type ProfileFields = Readonly<z.output<typeof profileFields>>

/** One registered server (`server add`); its profile's fields it does not set come from the profile (profiles.ts). */
export const serverRecordFields = profileFields.extend({
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
  /** The host agent it lives on (`server add --host`). */
  host: z.string().optional().meta({ description: 'the host agent it lives on (GET /api/hosts); none: this machine' }),
})
export const serverRecord = serverRecordFields.readonly()
export type ServerRecord = z.output<typeof serverRecord>

export const addServer = z.object({
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
export const editServer = z.object({
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
export const serverSample = z.object({
  t: z.number().meta({ description: 'when, in ms since the epoch' }),
  cpu: z.number().meta({ description: 'CPU use of the game (and what its main thread started), % of one core' }),
  rss: z.number().meta({ description: 'resident memory, bytes' }),
  /** Walked every `metrics.disk_interval_s`. */
  disk: z.number().optional().meta({ description: "the server's directory on disk, bytes (after the first walk)" }),
  uptime_s: z.number(),
})
export type ServerSample = Readonly<z.output<typeof serverSample>>

/** What `status` answers (and what a server's status reads as when nobody supervises it). */
export const runStatus = z.object({
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

export const sendReply = z.object({
  sent: z.literal(true),
  /** The reply lines, where the profile knows the command's reply (or what arrived shortly after). */
  reply: strings,
  /** Its after_command_send fact could not be recorded: what to tell. */
  warning: z
    .string()
    .optional()
    .describe('the command was sent and ran, but its fact is not in the event log (a full disk): do not send it again'),
})
export type SendReply = Readonly<z.output<typeof sendReply>>

export const exitReply = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Whether the stop command was not enough: `SIGTERM`, then `SIGKILL`. */
  escalated: z.enum(['SIGTERM', 'SIGKILL']).optional(),
})
export type ExitReply = Readonly<z.output<typeof exitReply>>

/** What a start answers once the server is up. */
export const startReply = z.object({ status: serverStatus, pid: z.number().int().optional(), mode: startMode })
export type StartReply = Readonly<z.output<typeof startReply>>

/** Who is online on a server, as its game's list command answers it. */
export const playerList = z.object({
  online: z.number().int(),
  max: z.number().int().optional().meta({ description: 'the most players the game takes, when it said' }),
  names: strings,
})
export type PlayerList = Readonly<z.output<typeof playerList>>

/** A server as `server list` shows it: its record and its status now. */
export const serverSummary = serverRecordFields
  .extend({
    /** `unknown`: it lives on a host that is offline (since `since`); its last known status is not current. */
    status: z.union([serverStatus, z.literal('unknown')]),
    /** Since when its status is unknown. */
    since: z.string().optional(),
    pid: z.number().int().optional(),
    /** Its player tracker's count. */
    players: z.number().int().optional().meta({ description: 'how many are online, while the manager knows' }),
    /** Its supervisor's last resource sample, while it runs with sampling on. */
    metrics: serverSample.optional(),
  })
  .readonly()
export type ServerSummary = z.output<typeof serverSummary>

/** A server's status, with who is online while a manager follows it running and knows. */
export const serverRunStatus = runStatus.extend({ players: playerList.optional() })
export type ServerRunStatus = Readonly<z.output<typeof serverRunStatus>>

/** A server as `server info` shows it: its record plus what its directory says now. */
export const serverInfo = serverRecordFields
  .extend({
    /** The world directory in effect (absolute), when there is one. */
    world: z.string().optional(),
    dirExists: z.boolean(),
  })
  .readonly()
export type ServerInfo = z.output<typeof serverInfo>

/** The result every action answers with (the `result` of its `after_*` event). */
export const actionResult = z.looseObject({
  status: z.enum(['success', 'error', 'cancelled']),
  message: z.string().optional(),
})

export const named = z.object({ name: z.string() })
/** A `this.api` argument naming a server: the payload's `name`, called `serverName` (a command's `api` door). */
export const serverArg = { field: 'name', as: 'serverName' } as const

/** The 404 of every route on one server. */
export const NO_SERVER = 'No server of that name.'
/** The HTTP door of a command on one server: tagged Servers, its 404 said. */
export const serverDoor = (door: Omit<HttpDoor, 'tags'>): HttpDoor => ({
  tags: ['Servers'],
  ...door,
  errors: { 404: NO_SERVER, ...door.errors },
})
export const nameAndFile = named.extend({ file: z.string(), stopStart: z.boolean().optional() })

/** The host agent of this data directory (services/servers/supervisor/agent.ts), when one serves. */
export const agentStatus = z.object({
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

/** A text of a server's record as the HTTP API takes it: at most `max` characters, never empty. */
const text = (max: number) => z.string().min(1).max(max)
const regex = text(500)
const paths = z.array(text(4096)).max(50)

/** POST /api/servers: what servers:add takes, each field within the HTTP API's limits. */
const addServerBody = z.object({
  name: text(64),
  dir: text(4096).meta({ description: 'an existing directory on the manager’s machine, or on the host’s with `host`' }),
  profile: profileName.optional(),
  command: text(4096).optional(),
  args: z.array(z.string().max(4096)).max(100).optional(),
  stopCommand: text(200).optional(),
  worldDir: text(4096).optional(),
  readyLine: regex.optional(),
  sayCommand: text(200).optional(),
  configFiles: paths.optional(),
  hotBackup: text(1000).optional().meta({ description: "'off;flush;on' console commands" }),
  hotBackupDone: regex
    .optional()
    .meta({ description: 'the console message that says the flush is done (a regular expression)' }),
  errorLines: z.array(regex).max(50).optional(),
  chatLine: regex
    .optional()
    .meta({ description: "a player's chat message (a regular expression): never a command's reply" }),
  host: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .meta({ description: 'the host agent to add it on (GET /api/hosts); its commands then go there' }),
})

/** PATCH /api/servers/{name}: what servers:edit takes but the name, within the HTTP API's limits (null clears). */
const clearable = <T extends z.ZodType>(schema: T) => schema.nullable().optional()
const editServerBody = z.object({
  command: text(4096).optional(),
  args: z.array(z.string().max(4096)).max(100).optional(),
  env: z.record(z.string().max(200), z.string().max(4096)).optional(),
  stopCommand: text(200).optional(),
  worldDir: clearable(text(4096)),
  readyLine: clearable(regex),
  errorLines: clearable(z.array(regex).max(50)),
  chatLine: clearable(regex),
  sayCommand: clearable(text(200)),
  configFiles: clearable(paths),
  hotBackup: clearable(text(1000)).meta({ description: "'off;flush;on' console commands" }),
  hotBackupDone: clearable(regex).meta({ description: 'the console message that says the flush is done' }),
})

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const recordsCommands = {
  /** The host agent that supervises this data directory's games: its PID, since when, memory, the runs it supervises (never starts one). */
  'servers:agent': command(empty, agentStatus, { host: { here: true } }),
  /** Adopts an existing directory as a server (profile detected: bedrock when it holds bedrock_server). */
  'servers:add': command(addServer, serverRecord, {
    http: {
      method: 'post',
      path: '/servers',
      name: 'add_server',
      summary: 'Add a server from a directory on this machine, or on a host agent (its profile detected unless given)',
      tags: ['Servers'],
      access: 'admin',
      input: addServerBody,
      status: 201,
      key: 'server',
      response: 'ServerAdded',
      errors: {
        409: 'A server of that name exists, or another server has that directory.',
        422: 'The request is not valid, the directory cannot be used, or a profile field is not valid.',
      },
    },
  }),
  /**
   * Changes a server's record after it was added: how it runs and its profile fields, checked as
   * `servers:add` checks them (a `servers:edited` fact). A running game takes the change at its
   * next start; backups and replies read it at once.
   */
  'servers:edit': command(
    editServer,
    z.object({ server: serverRecord, changed: z.array(z.string()).meta({ description: 'the fields changed' }) }),
    {
      http: serverDoor({
        method: 'patch',
        path: '/servers/:name',
        name: 'edit_server',
        summary:
          "Change how a server runs and its profile fields after it was added, checked as an add checks them (null clears a field: its profile's applies again); a running game takes the change at its next start",
        access: 'admin',
        input: editServerBody,
        response: 'ServerEdited',
        errors: {
          422: 'The request is not valid, or a field is not (a regular expression that does not compile, a folder outside the server directory).',
        },
      }),
    },
  ),
  'servers:list': command(empty, z.array(serverSummary).readonly(), { host: { here: true } }),
  'servers:info': command(named, serverInfo, { host: { reads: true } }),
  /** The game profile in effect for the server: its profile's fields, the server's own over them (plain data). */
  'servers:profile': command(named, gameProfile, {
    host: { reads: true },
    api: {
      name: 'getServerProfile',
      kind: 'read',
      params: [serverArg],
      description:
        "The game profile in effect for the server (its profile's fields, the server's own over them), as plain data: how to tell its players something (`sayCommand`), how to know who is online (`players`), which replies mean a command was refused (`errorLines`), its ready line, stop command, config files, world and hot-backup protocol. Send a game only the commands its profile names.",
    },
  }),
  /**
   * Removes a stopped server (`deleteFiles`: its directory too). `forget`: a server on another
   * host is removed from this manager only, its host not asked (a host retired or gone for good):
   * on that machine it and its files stay as they are.
   */
  'servers:remove': command(
    named.extend({ deleteFiles: z.boolean().optional(), forget: z.boolean().optional() }),
    actionResult.extend({
      /** Its directory: deleted, or where its files stay. */
      dir: z.string(),
      files: z.enum(['kept', 'deleted']),
    }),
    {
      http: serverDoor({
        method: 'delete',
        path: '/servers/:name',
        name: 'remove_server',
        summary:
          'Remove a stopped server from the manager: its files are kept unless delete_files=true, which deletes its directory (the reply says which was done)',
        access: 'admin',
        input: z.object({
          delete_files: queryFlag(),
          forget: queryFlag().meta({
            description:
              'a server on another host that is gone for good: remove it from this manager only, without asking that host',
          }),
        }),
        rename: { delete_files: 'deleteFiles' },
        response: 'ServerRemoved',
        errors: {
          409: 'The server is running: stop it first. Or, with forget, its host is online (remove it without forget).',
        },
      }),
    },
  ),
  /** The server's server.properties as key → value, in file order. */
  'servers:properties': command(named, z.record(z.string(), z.string())),
  /** Changes keys of server.properties (the properties_change action), keeping comments and order. */
  'servers:set_properties': command(
    named.extend({ properties: z.record(z.string(), z.string()) }),
    z.object({ changed: z.record(z.string(), z.object({ from: z.string().optional(), to: z.string() })) }),
    {
      http: serverDoor({
        method: 'put',
        path: '/servers/:name/properties',
        right: 'settings',
        name: 'set_server_properties',
        summary: 'Change keys of server.properties (comments and order kept)',
        access: 'admin',
        input: z.object({
          properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)),
        }),
        response: 'PropertiesChanged',
        errors: {
          404: 'No server of that name, or it has no server.properties.',
          409: 'The server is busy with another power action, backup or restore.',
        },
      }),
    },
  ),
}
