/** Who plays on a server: the player history and the lists a game keeps (allowlist, operators). */
import { z } from 'zod'
import { command, type HttpDoor } from '../../../kernel'
import { named, playerList, serverArg, serverDoor } from './records'

/** One player of one server, as the history knows them from the join and leave facts. */
const when = z.string().meta({ description: 'ISO 8601, UTC' })
export const playerRecord = z.object({
  name: z.string(),
  id: z.string().optional().meta({ description: "the last id the game printed (Bedrock's xuid, Java's UUID)" }),
  /** Their first and latest join or leave. */
  firstSeen: when,
  lastSeen: when,
  joins: z.number().int(),
  /** Up to the read. */
  playedMs: z.number().meta({ description: 'time online in milliseconds, the session under way included' }),
  online: z.boolean(),
  /** When the session under way began (online players only). */
  onlineSince: when.optional(),
})
export type PlayerRecord = Readonly<z.output<typeof playerRecord>>

/** The lists of players a game keeps: who may join, and who is an operator. */
export const ACCESS_LISTS = ['allowlist', 'operators'] as const
export const accessListName = z.enum(ACCESS_LISTS)
export type AccessListName = z.output<typeof accessListName>

/** One player on a list: the file's name, or the player history's for a file of ids only. */
export const accessEntry = z.object({
  name: z.string().optional().meta({ description: 'from the player history where the file has only ids' }),
  id: z.string().optional().meta({ description: 'xuid or UUID, when the file has it' }),
})
export type AccessEntry = Readonly<z.output<typeof accessEntry>>

/** What an allowlist or operators change did. */
export const accessChange = z.object({
  message: z.string(),
  changed: z.boolean().meta({ description: 'false when there was nothing to do (already on the list, or not on it)' }),
  via: z.enum(['console', 'file']).meta({
    description:
      "the running game's console did it, or the manager edited the file (the game stopped, or it has no console command for it)",
  }),
  players: z.array(accessEntry).meta({ description: 'the list after the change' }),
  warning: z.string().optional().meta({
    description:
      'done, with something to know (the running game did not reload the edited file, or the fact was not recorded)',
  }),
})
export type AccessChange = Readonly<z.output<typeof accessChange>>

/** Each list's files, as its routes' summaries name them. */
const LIST_FILES: Readonly<Record<AccessListName, string>> = {
  allowlist: "Bedrock's allowlist.json, Java's whitelist.json",
  operators: "Bedrock's permissions.json, Java's ops.json",
}
const UNKNOWN_LIST = "The server's profile knows no such list (a generic server), or the player name cannot be one."
/** The refusals of a change to a list. */
const ACCESS_REFUSALS = {
  409: "A player the file names by id (Java's UUID, Bedrock's xuid) who never joined while a manager ran (SM_ERR_SERVER_PLAYER_ID_UNKNOWN), or a plugin vetoed the change (SM_ERR_SERVER_CHANGE_CANCELLED).",
  422: `${UNKNOWN_LIST} Or the running game refused it (SM_ERR_SERVER_ACCESS_REFUSED, with its reply lines in \`reply\`).`,
}
/** One route per list, each named alike in its path, its summary and its payload (admins only). */
const perList = (door: (list: AccessListName, files: string) => Omit<HttpDoor, 'tags' | 'access'>): HttpDoor[] =>
  ACCESS_LISTS.map((list) => serverDoor({ access: 'admin', ...door(list, LIST_FILES[list]) }))

/** The commands of this area, declared with the others in services/servers/contract.ts. */
export const playersCommands = {
  /**
   * Who is online: its profile's list command, asked live and not as a command_send action
   * (SM_ERR_SERVER_PLAYERS_UNKNOWN when its profile cannot tell).
   */
  'servers:players': command(named, playerList, {
    api: {
      name: 'listPlayers',
      kind: 'read',
      params: [serverArg],
      description:
        "Who is online on a running server, as its game's list command answers: `{ online, max, names }` (`max` undefined when the game did not say). A read: no command fact, no hook. Rejects with `SM_ERR_SERVER_NOT_RUNNING`, `SM_ERR_SERVER_PLAYERS_UNKNOWN` (its profile cannot tell) or `SM_ERR_SERVER_PLAYERS_UNREADABLE` (the reply was not a list).",
    },
    http: serverDoor({
      method: 'get',
      path: '/servers/:name/players',
      right: 'view',
      name: 'server_players',
      summary: "Who is online: the game's own list command, asked now",
      access: 'user',
      key: 'players',
      response: 'ServerPlayers',
      errors: {
        409: 'The server is not running.',
        422: "The server's profile cannot tell who is online (a generic server).",
        502: 'The game did not answer with a players list.',
      },
    }),
  }),
  /**
   * Everyone who joined the server while a manager followed it (the player_history projection):
   * name, last id, first and last seen, joins, time played, online now; the latest seen first.
   */
  'servers:player_history': command(named, z.array(playerRecord), {
    http: serverDoor({
      method: 'get',
      path: '/servers/:name/players/history',
      right: 'view',
      name: 'server_player_history',
      summary:
        'Everyone who joined the server while a manager followed it: last id, first and last seen, joins, time played, online now',
      access: 'user',
      key: 'players',
      response: 'PlayerHistory',
    }),
  }),
  /**
   * The server's allowlist or operators as its file says (SM_ERR_SERVER_ACCESS_UNKNOWN when its
   * profile knows none); names come from the player history where the file has only ids.
   */
  'servers:access_list': command(named.extend({ list: accessListName }), z.array(accessEntry), {
    http: perList((list, files) => ({
      method: 'get',
      path: `/servers/:name/${list}`,
      right: 'players',
      name: `server_${list}`,
      summary: `The server's ${list}, as its file says (${files})`,
      fixed: { list },
      key: 'players',
      response: `${list[0]?.toUpperCase()}${list.slice(1)}List`,
      errors: { 422: "The server's profile knows no such list (a generic server), or its file is not a JSON list." },
    })),
  }),
  /**
   * Adds a player to the allowlist or operators, or removes them (the allowlist_change or
   * operator_change action): by the console while the game runs, else by editing the file.
   */
  'servers:access_change': command(
    named.extend({ list: accessListName, change: z.enum(['add', 'remove']), player: z.string() }),
    accessChange,
    {
      http: [
        ...perList((list) => ({
          method: 'post',
          path: `/servers/:name/${list}`,
          right: 'players',
          name: `add_to_${list}`,
          summary: `Add a player to the ${list}: by the console while the server runs, else in its file`,
          input: z.object({ player: z.string().trim().min(1).max(64).meta({ description: "the player's name" }) }),
          fixed: { list, change: 'add' },
          response: 'AccessChange',
          errors: ACCESS_REFUSALS,
        })),
        ...perList((list) => ({
          method: 'delete',
          path: `/servers/:name/${list}/:player`,
          right: 'players',
          name: `remove_from_${list}`,
          summary: `Remove a player from the ${list}: by the console while the server runs, else in its file`,
          paramMax: { player: 64 },
          fixed: { list, change: 'remove' },
          response: 'AccessChange',
          errors: ACCESS_REFUSALS,
        })),
      ],
    },
  ),
}
