/**
 * Game profiles: what the manager knows about a kind of game server, as plain data (it travels
 * in server records, in the supervisor's run spec, and in messages), so that nothing else in
 * the code assumes Bedrock. Three are built in: `bedrock`, `java` (vanilla Minecraft Java
 * Edition and the forks that print its lines: Paper, Purpur, Fabric, Forge) and `generic`, whose
 * fields an admin sets per server (`server add --ready-line ... --hot-backup ...`). A server's
 * own fields win over its profile's (`gameProfile`).
 */

export const PROFILE_NAMES = ['bedrock', 'java', 'generic'] as const
export type ProfileName = (typeof PROFILE_NAMES)[number]

/** How a game tells who is online, and who joins and leaves (regular expressions over console messages). */
export interface PlayersProtocol {
  /** The console command that lists who is online. */
  readonly listCommand: string
  /** Its reply's first line: groups `online` and `max`, and `names` when the names are on the same line. */
  readonly listReply: string
  /** A join line: group `name`, and `id` (xuid, UUID) where the game prints it. */
  readonly join?: string
  /** A leave line: group `name`, and `id` where the game prints it. */
  readonly leave?: string
  /**
   * A line that names a player's id before they join (groups `name` and `id`): Java prints the
   * UUID on its own line (`UUID of player Steve is …`, in online mode), not in `joined the game`.
   */
  readonly identify?: string
}

/**
 * How a game is backed up while it runs: Bedrock's `save hold` / `save query` / `save resume`
 * (the game lists the files and their lengths to copy), or console commands around a copy of
 * the whole world: `off` stops the game writing, `flush` writes what it holds, `on` resumes.
 */
export type HotBackupProtocol =
  | { readonly kind: 'bedrock' }
  | {
      readonly kind: 'commands'
      readonly off: readonly string[]
      readonly flush: readonly string[]
      readonly on: readonly string[]
    }

/**
 * The console commands that hold a world for a copy and resume it after: Bedrock's `save hold`
 * and `save resume`, or a protocol's `off` and `on` commands. A supervisor sends them on behalf
 * of the process that copies, and the resume commands itself when that process goes away.
 */
export function holdCommands(protocol: HotBackupProtocol): {
  readonly hold: readonly string[]
  readonly resume: readonly string[]
} {
  return protocol.kind === 'bedrock'
    ? { hold: ['save hold'], resume: ['save resume'] }
    : { hold: protocol.off, resume: protocol.on }
}

/**
 * A list of players a game keeps in a JSON file of its directory: who may join (the allowlist)
 * or who is an operator. While the game runs, `add` and `remove` go to its console where it has
 * them (it resolves the name and writes its file); otherwise the manager edits the file
 * (atomically) and, while it runs, sends `reload`. Each entry of the file is an object:
 * `name` (where `named`), the player's id under `idField`, and `fields`.
 */
export interface AccessListProtocol {
  /** The JSON file (an array of objects), relative to the server directory. */
  readonly file: string
  /** The field that holds a player's id: Bedrock's `xuid`, Java's `uuid`. */
  readonly idField: string
  /** Whether entries name the player (Bedrock's permissions.json has only xuids). */
  readonly named: boolean
  /** Whether an entry needs the id: the manager takes it from the player history, or refuses. */
  readonly idRequired: boolean
  /** Written with every new entry; those named in `match` must be on an entry for it to count. */
  readonly fields: Readonly<Record<string, string | number | boolean>>
  readonly match: readonly string[]
  /** Console commands while the game runs: `{name}` is the player's name (quoted when it holds a space). */
  readonly add?: string
  readonly remove?: string
  /** The console command that makes a running game read the file again after the manager edited it. */
  readonly reload?: string
  /** Reply messages that mean there was nothing to do (already on the list, or not on it). */
  readonly unchanged: readonly string[]
}

/** Where a game's world is: a directory, or one a properties file names (`level-name`). */
export type WorldLocation =
  | { readonly dir: string }
  | { readonly property: string; readonly file: string; readonly parent: string; readonly fallback: string }

export interface GameProfile {
  readonly name: ProfileName
  /**
   * The console message that says the game is ready (a regular expression); none: it is running
   * once its process exists. Until then its status is `starting`, and a start waits for it.
   */
  readonly readyLine: string | undefined
  /** The console command that stops it. */
  readonly stopCommand: string
  /**
   * A console line's message without its prefix (time stamp, thread, level): a regular
   * expression whose first group is the message. Lines that do not match are messages whole.
   */
  readonly messagePattern: string | undefined
  /** Reply messages that mean the command sent was refused (regular expressions). */
  readonly errorLines: readonly string[]
  /** How to tell every player something: `say {message}`; none when the game cannot. */
  readonly sayCommand: string | undefined
  readonly players: PlayersProtocol | undefined
  /** Who may join (Bedrock's allowlist.json, Java's whitelist.json); none: the profile does not know. */
  readonly allowlist: AccessListProtocol | undefined
  /** Who is an operator (Bedrock's permissions.json, Java's ops.json); none: the profile does not know. */
  readonly operators: AccessListProtocol | undefined
  /** Config files (relative to the server directory): config backups hold them, the editor edits them. */
  readonly configFiles: readonly string[]
  readonly world: WorldLocation | undefined
  readonly hotBackup: HotBackupProtocol | undefined
  /**
   * What a world of this game has at its top (`db/`: a directory): an archive holding none of
   * them is refused by a restore or an import. None: any archive is taken.
   */
  readonly worldMarkers: readonly string[]
  /** The file name extension of a world archive: `mcworld` for Bedrock (importable by the game), else `zip`. */
  readonly worldArchive: 'mcworld' | 'zip'
  /**
   * The game runs only once its EULA is accepted in `eula.txt` (`eula=true`). The manager never
   * accepts it by itself: an admin does (`server eula <name> --accept`), and a start is refused until then.
   */
  readonly eula: boolean
  /**
   * Commands whose reply the profile knows: the reply is complete once a message matches `done`
   * and `extraLines` more lines came (a command may have several entries, one per outcome).
   * Other replies are complete when the console has been quiet for a moment.
   */
  readonly replies: readonly { readonly command: string; readonly done: string; readonly extraLines?: number }[]
}

const BEDROCK: GameProfile = {
  name: 'bedrock',
  readyLine: '^Server started\\.$',
  stopCommand: 'stop',
  // `[2022-07-17 02:32:53:104 INFO] x`, `[2020-04-14 10:55:15 INFO] x`, `[INFO] x`, `NO LOG FILE! - [INFO] x`.
  messagePattern:
    '^(?:NO LOG FILE! - )?\\[(?:\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?::\\d{1,3})? )?(?:INFO|WARN|ERROR)\\] ?(.*)$',
  errorLines: ['^Unknown command: ', '^Syntax error: ', '^No targets matched selector'],
  sayCommand: 'say {message}',
  players: {
    listCommand: 'list',
    listReply: '^There are (?<online>\\d+)/(?<max>\\d+) players online:',
    join: '^Player connected: (?<name>.+?), xuid: (?<id>\\d*)',
    leave: '^Player disconnected: (?<name>.+?), xuid: (?<id>\\d*)',
  },
  allowlist: {
    file: 'allowlist.json',
    idField: 'xuid',
    named: true,
    idRequired: false,
    fields: { ignoresPlayerLimit: false },
    match: [],
    add: 'allowlist add {name}',
    remove: 'allowlist remove {name}',
    reload: 'allowlist reload',
    unchanged: ['^Player already in allowlist', '^Player not in allowlist'],
  },
  // `op` takes only a player who is online: the file is edited, then reloaded.
  operators: {
    file: 'permissions.json',
    idField: 'xuid',
    named: false,
    idRequired: true,
    fields: { permission: 'operator' },
    match: ['permission'],
    reload: 'permission reload',
    unchanged: [],
  },
  configFiles: ['server.properties', 'allowlist.json', 'permissions.json'],
  world: { property: 'level-name', file: 'server.properties', parent: 'worlds', fallback: 'Bedrock level' },
  hotBackup: { kind: 'bedrock' },
  worldMarkers: ['level.dat', 'db/'],
  worldArchive: 'mcworld',
  eula: false,
  replies: [
    { command: 'save hold', done: '^Saving|already running' },
    { command: 'save query', done: 'A previous save has not been completed' },
    { command: 'save query', done: 'Files are now ready to be copied', extraLines: 1 },
    { command: 'save resume', done: 'are resumed' },
  ],
}

const JAVA: GameProfile = {
  name: 'java',
  readyLine: '^Done \\([0-9.,]+s\\)! For help, type "help"',
  stopCommand: 'stop',
  // Vanilla and Fabric `[12:34:56] [Server thread/INFO]: x`; Paper, Purpur and Spigot
  // `[12:34:56 INFO]: x`; Forge and NeoForge add the logger, and may date the time:
  // `[12:34:56] [Server thread/INFO] [minecraft/DedicatedServer]: x`,
  // `[23Jun2024 12:34:56.789] [Server thread/INFO] [net.minecraft.server.Main/]: x`.
  messagePattern:
    '^\\[(?:\\d\\d[A-Za-z]{3}\\d{4} )?\\d\\d:\\d\\d:\\d\\d(?:\\.\\d{3})?(?:\\] \\[[^\\]]*/| )(?:INFO|WARN|ERROR|FATAL|DEBUG|TRACE)\\](?: \\[[^\\]]*\\])?: ?(.*)$',
  errorLines: [
    '^Unknown or incomplete command',
    '<--\\[HERE\\]$',
    '^Unknown command\\.',
    '^That player does not exist$',
    '^No player was found$',
  ],
  sayCommand: 'say {message}',
  players: {
    listCommand: 'list',
    listReply: '^There are (?<online>\\d+) of a max of (?<max>\\d+) players online:(?<names>.*)$',
    join: '^(?<name>[A-Za-z0-9_]{1,16}) joined the game$',
    leave: '^(?<name>[A-Za-z0-9_]{1,16}) left the game$',
    identify: '^UUID of player (?<name>[A-Za-z0-9_]{1,16}) is (?<id>[0-9a-fA-F-]{32,36})$',
  },
  // The game looks a name up in its user cache (players who joined) or at Mojang's.
  allowlist: {
    file: 'whitelist.json',
    idField: 'uuid',
    named: true,
    idRequired: true,
    fields: {},
    match: [],
    add: 'whitelist add {name}',
    remove: 'whitelist remove {name}',
    reload: 'whitelist reload',
    unchanged: ['^Player is already whitelisted$', '^Player is not whitelisted$'],
  },
  operators: {
    file: 'ops.json',
    idField: 'uuid',
    named: true,
    idRequired: true,
    fields: { level: 4, bypassesPlayerLimit: false },
    match: [],
    add: 'op {name}',
    remove: 'deop {name}',
    unchanged: [
      '^Nothing changed\\. The player already is an operator$',
      '^Nothing changed\\. The player is not an operator$',
    ],
  },
  configFiles: [
    'server.properties',
    'ops.json',
    'whitelist.json',
    'banned-players.json',
    'banned-ips.json',
    'eula.txt',
  ],
  world: { property: 'level-name', file: 'server.properties', parent: '.', fallback: 'world' },
  hotBackup: { kind: 'commands', off: ['save-off'], flush: ['save-all flush'], on: ['save-on'] },
  worldMarkers: ['level.dat'],
  worldArchive: 'zip',
  eula: true,
  replies: [
    { command: 'save-off', done: '^Automatic saving is now disabled|^Saving is already turned off' },
    { command: 'save-on', done: '^Automatic saving is now enabled|^Saving is already turned on' },
    { command: 'save-all flush', done: '^Saved the game' },
    { command: 'save-all', done: '^Saved the game' },
  ],
}

const GENERIC: GameProfile = {
  name: 'generic',
  readyLine: undefined,
  stopCommand: 'stop',
  messagePattern: undefined,
  errorLines: [],
  sayCommand: undefined,
  players: undefined,
  allowlist: undefined,
  operators: undefined,
  configFiles: [],
  world: undefined,
  hotBackup: undefined,
  worldMarkers: [],
  worldArchive: 'zip',
  eula: false,
  replies: [],
}

export const BUILT_IN_PROFILES: Readonly<Record<ProfileName, GameProfile>> = {
  bedrock: BEDROCK,
  java: JAVA,
  generic: GENERIC,
}

/** What a server's record may set over its profile (`server add` flags). */
export interface ProfileFields {
  readonly profile: ProfileName
  readonly stopCommand: string
  readonly worldDir: string | undefined
  readonly readyLine?: string | undefined
  readonly sayCommand?: string | undefined
  readonly configFiles?: readonly string[] | undefined
  /** The hot-backup commands: `off`, `flush` and `on`, each one or more console commands. */
  readonly hotBackup?: {
    readonly off: readonly string[]
    readonly flush: readonly string[]
    readonly on: readonly string[]
  }
  readonly errorLines?: readonly string[] | undefined
}

/** The profile in effect for a server: its profile's fields, with the server's own over them. */
export function gameProfile(server: ProfileFields): GameProfile {
  const base = BUILT_IN_PROFILES[server.profile] ?? GENERIC
  return {
    ...base,
    stopCommand: server.stopCommand || base.stopCommand,
    readyLine: server.readyLine ?? base.readyLine,
    sayCommand: server.sayCommand ?? base.sayCommand,
    configFiles: server.configFiles ?? base.configFiles,
    errorLines: server.errorLines ?? base.errorLines,
    world: server.worldDir !== undefined ? { dir: server.worldDir } : base.world,
    hotBackup: server.hotBackup ? { kind: 'commands', ...server.hotBackup } : base.hotBackup,
  }
}

/** A console line's message: the profile's prefix (time, thread, level) taken off. */
export function consoleMessage(profile: Pick<GameProfile, 'messagePattern'>, line: string): string {
  if (!profile.messagePattern) return line
  const match = compiled(profile.messagePattern).exec(line)
  return match ? (match[1] ?? '') : line
}

/**
 * The message (prefix off) of the first reply line that says the game refused a command (it
 * matches one of the profile's error lines), or undefined: the command was taken.
 */
export function refusalIn(
  profile: Pick<GameProfile, 'messagePattern' | 'errorLines'>,
  reply: readonly string[],
): string | undefined {
  return reply
    .map((line) => consoleMessage(profile, line).trim())
    .find((message) => profile.errorLines.some((pattern) => matches(pattern, message) !== null))
}

/** Whether `text` matches the regular expression `source` (compiled once per source). */
export function matches(source: string, text: string): RegExpExecArray | null {
  return compiled(source).exec(text)
}

const cache = new Map<string, RegExp>()
function compiled(source: string): RegExp {
  let regex = cache.get(source)
  if (!regex) {
    regex = new RegExp(source)
    if (cache.size > 1000) cache.clear()
    cache.set(source, regex)
  }
  return regex
}

/**
 * Why `source` cannot be a profile's regular expression, or undefined: it must compile, and be
 * short (it runs on every console line).
 */
export function patternProblem(source: string): string | undefined {
  if (source.length === 0) return 'it is empty'
  if (source.length > 500) return 'it is longer than 500 characters'
  try {
    new RegExp(source)
    return undefined
  } catch (error) {
    return `it is not a regular expression: ${(error as Error).message}`
  }
}

/**
 * `save-off;save-all flush;save-on` → the three steps, each `,`-separated commands; undefined
 * (with why) when it is not three non-empty steps.
 */
export function parseHotBackup(text: string): ProfileFields['hotBackup'] | string {
  const steps = text.split(';').map((step) =>
    step
      .split(',')
      .map((command) => command.trim())
      .filter(Boolean),
  )
  if (steps.length !== 3 || steps.some((step) => step.length === 0))
    return "give three steps, 'off;flush;on' (e.g. 'save-off;save-all flush;save-on'), each one or more commands separated by ','"
  const [off = [], flush = [], on = []] = steps
  return { off, flush, on }
}
