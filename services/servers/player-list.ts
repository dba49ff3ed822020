import { SmError } from '../../kernel'
import type { PlayerList, ServerRecord } from './contract'
import { consoleMessage, type GameProfile, gameProfile, matches, type PlayersProtocol } from './profiles'

export type { PlayerList } from './contract'

/** The first line of a list reply: its counts, and its names when they are on it. */
export interface ListHead {
  readonly online: number
  readonly max: number | undefined
  /** The names' text (`Steve, Alex`); undefined when they come on the next line (Bedrock). */
  readonly names: string | undefined
}

/** `message` as the first line of a list reply, or undefined when it is not one. */
export function listHead(players: PlayersProtocol, message: string): ListHead | undefined {
  const groups = matches(players.listReply, message)?.groups
  if (!groups) return undefined
  const online = Number(groups.online)
  if (!Number.isSafeInteger(online)) return undefined
  const max = groups.max === undefined ? undefined : Number(groups.max)
  return { online, max: Number.isSafeInteger(max) ? max : undefined, names: groups.names }
}

/** Whether a list reply's names follow on the next line: none on its first, and someone online. */
export function namesFollow(head: ListHead): boolean {
  return head.names === undefined && head.online > 0
}

/** `Steve, Alex` → `['Steve', 'Alex']` (Bedrock names may hold spaces, never a comma). */
export function splitNames(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
}

/**
 * Reads the reply to a profile's list command (console lines, prefixes and all): the first
 * message that is a list's first line gives the counts, its `names` group or the next line the
 * names. Undefined when no line of the reply is a list.
 */
export function parsePlayerList(
  profile: Pick<GameProfile, 'messagePattern' | 'players'>,
  lines: readonly string[],
): PlayerList | undefined {
  const players = profile.players
  if (!players) return undefined
  const messages = lines.map((line) => consoleMessage(profile, line).trim())
  for (const [at, message] of messages.entries()) {
    const head = listHead(players, message)
    if (!head) continue
    const names = splitNames((namesFollow(head) ? messages[at + 1] : head.names) ?? '')
    return { online: head.online, max: head.max, names }
  }
  return undefined
}

/**
 * Asks a server's game who is online: its profile's list command (through `ask`, which answers
 * the reply lines), read with `parsePlayerList`. Coded errors when its profile cannot tell or
 * the reply is not a list.
 */
export async function askPlayers(
  server: ServerRecord,
  ask: (command: string) => Promise<readonly string[]>,
): Promise<PlayerList> {
  const profile = gameProfile(server)
  if (!profile.players)
    throw new SmError('SM_ERR_SERVER_PLAYERS_UNKNOWN', { server: server.name, profile: server.profile })
  const command = profile.players.listCommand
  const reply = await ask(command)
  const list = parsePlayerList(profile, reply)
  if (list) return list
  const shown = reply.length ? JSON.stringify(reply.slice(0, 5).join('\n')) : 'nothing'
  throw new SmError('SM_ERR_SERVER_PLAYERS_UNREADABLE', { server: server.name, command, reply: shown })
}
