/**
 * Game profiles: what the manager knows about a kind of game server, as plain data (it travels
 * in server records, in the supervisor's run spec, and in messages), so that nothing else in
 * the code assumes Bedrock. Three are built in: `bedrock`, `java` (vanilla Minecraft Java
 * Edition and the forks that print its lines: Paper, Purpur, Fabric, Forge) and `generic`, whose
 * fields an admin sets per server (`server add --ready-line ... --hot-backup ...`). A server's
 * own fields win over its profile's (`gameProfile`). Their shape is a schema in contract.ts.
 */

import type { GameProfile, HotBackupProtocol, ProfileFields, ProfileName } from './contract'

export type {
  AccessListProtocol,
  GameProfile,
  HotBackupProtocol,
  PlayersProtocol,
  ProfileFields,
  ProfileName,
  WorldLocation,
} from './contract'

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

const BEDROCK: GameProfile = {
  name: 'bedrock',
  readyLine: '^Server started\\.$',
  stopCommand: 'stop',
  // `[2022-07-17 02:32:53:104 INFO] x`, `[2020-04-14 10:55:15 INFO] x`, `[INFO] x`, `NO LOG FILE! - [INFO] x`.
  messagePattern:
    '^(?:NO LOG FILE! - )?\\[(?:\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?::\\d{1,3})? )?(?:INFO|WARN|ERROR)\\] ?(.*)$',
  errorLines: ['^Unknown command: ', '^Syntax error: ', '^No targets matched selector'],
  // The stock server does not print chat; where it is printed (a mod, a wrapper) it is the
  // client's `<name> text` form, and names may hold spaces.
  chatLine: '^<[^<>]{1,40}> ',
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
  // Vanilla and its forks print a player's chat as `<name> text`, and since 1.19 an unsigned
  // one (offline mode, Paper with secure chat off, a proxy) as `[Not Secure] <name> text`.
  chatLine: '^(?:\\[Not Secure\\] )?<[^<>\\s]{1,40}> ',
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
  hotBackup: {
    kind: 'commands',
    off: ['save-off'],
    flush: ['save-all flush'],
    on: ['save-on'],
    done: '^Saved the game',
  },
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
  chatLine: undefined,
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
    chatLine: server.chatLine ?? base.chatLine,
    world: server.worldDir !== undefined ? { dir: server.worldDir } : base.world,
    hotBackup: hotBackupOf(server, base.hotBackup),
  }
}

/**
 * A server's hot backup: its own commands, else its profile's; the flush's done line its own,
 * else its profile's (the same game words its lines so whichever commands flush it).
 */
function hotBackupOf(server: ProfileFields, base: HotBackupProtocol | undefined): HotBackupProtocol | undefined {
  const done = server.hotBackupDone ?? (base?.kind === 'commands' ? base.done : undefined)
  const commands = server.hotBackup ?? (base?.kind === 'commands' ? base : undefined)
  if (!commands) return base
  const { off, flush, on } = commands
  return { kind: 'commands', off, flush, on, ...(done !== undefined && { done }) }
}

/** A console line's message: the profile's prefix (time, thread, level) taken off. */
export function consoleMessage(profile: Pick<GameProfile, 'messagePattern'>, line: string): string {
  if (!profile.messagePattern) return line
  const match = compiled(profile.messagePattern).exec(line)
  return match ? (match[1] ?? '') : line
}

/** Whether a console line is a player's chat (the profile's chat line): never a reply, never an error. */
export function isChat(profile: Pick<GameProfile, 'messagePattern' | 'chatLine'>, line: string): boolean {
  const chat = profile.chatLine
  return chat !== undefined && matches(chat, consoleMessage(profile, line).trim()) !== null
}

/** Whether a message (prefix off) is one of the profile's error lines. */
export function isErrorLine(profile: Pick<GameProfile, 'errorLines'>, message: string): boolean {
  return profile.errorLines.some((pattern) => matches(pattern, message) !== null)
}

/**
 * Whether `lines` hold the whole reply of `command`, for the commands whose reply the profile
 * knows (its `replies`, and its players' list); undefined for the others.
 */
export function knownReplyDone(
  game: Pick<GameProfile, 'messagePattern' | 'replies' | 'players'>,
  command: string,
  lines: readonly string[],
): boolean | undefined {
  const verb = command.trim().replace(/^\//, '').toLowerCase()
  const known = game.replies.filter((reply) => reply.command.toLowerCase() === verb)
  const players = game.players
  const list = players && verb === players.listCommand.toLowerCase()
  if (!list && known.length === 0) return undefined
  const messages = lines.map((line) => consoleMessage(game, line))
  const after = (pattern: string, extra: number) => {
    const at = messages.findIndex((message) => matches(pattern, message) !== null)
    return at >= 0 && messages.length > at + extra
  }
  // A list reply whose names are not on its first line has them on the next one (Bedrock).
  if (list && after(players.listReply, players.listReply.includes('?<names>') ? 0 : 1)) return true
  return known.some((reply) => after(reply.done, reply.extraLines ?? 0))
}

/**
 * The message (prefix off) of the first reply line that says the game refused a command (it
 * matches one of the profile's error lines), or undefined: the command was taken. A player's
 * chat is no reply; and once the reply the profile knows for `command` came, the command was
 * taken, whatever else the console printed meanwhile.
 */
export function refusalIn(
  profile: Pick<GameProfile, 'messagePattern' | 'errorLines' | 'chatLine' | 'replies' | 'players'>,
  reply: readonly string[],
  command?: string,
): string | undefined {
  const lines = reply.filter((line) => !isChat(profile, line))
  if (command !== undefined && knownReplyDone(profile, command, lines) === true) return undefined
  return lines.map((line) => consoleMessage(profile, line).trim()).find((message) => isErrorLine(profile, message))
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
