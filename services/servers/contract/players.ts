/** Who plays on a server: the player history and the lists a game keeps (allowlist, operators). */
import { z } from 'zod'
import { command } from '../../../kernel'
import { named, playerList, serverArg, serverDoor } from './records'

/** One player of one server, as the history knows them from the join and leave facts. */
export const playerRecord = z.object({
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
export const accessListName = z.enum(ACCESS_LISTS)
export type AccessListName = z.output<typeof accessListName>

/** One player on a list: the file's name, or the player history's for a file of ids only. */
export const accessEntry = z.object({
  name: z.string().optional(),
  /** The player's id on the list (xuid, UUID), when the file has one. */
  id: z.string().optional(),
})
export type AccessEntry = Readonly<z.output<typeof accessEntry>>

/** What an allowlist or operators change did. */
export const accessChange = z.object({
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
}
