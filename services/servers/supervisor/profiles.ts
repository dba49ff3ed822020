import { BUILT_IN_PROFILES, consoleMessage, type GameProfile, matches, refusalIn } from '../profiles'
import type { RunSpec } from './run-files'

/** How a kind of game server talks on its console: when it is ready, and what its replies look like. */
export interface ConsoleProfile {
  /** The line that says the server is up; none: it counts as running once its process exists. */
  readonly ready: ((line: string) => boolean) | undefined
  /** When a command's reply is complete, for the commands whose replies the profile knows. */
  replyDone(command: string, lines: readonly string[]): boolean | undefined
  /**
   * Whether `lines` say the game did `command`: no line is one of its error lines, and its known
   * reply came (a reply the profile does not know: yes).
   */
  acknowledged(command: string, lines: readonly string[]): boolean
}

/**
 * A Bedrock log line's message without its prefix. All of these occur in real logs:
 * `[2022-07-17 02:32:53:104 INFO] x`, `[2020-04-14 10:55:15 INFO] x`, `[INFO] x`, `NO LOG FILE! - [INFO] x`.
 */
export function bedrockMessage(line: string): string {
  return consoleMessage(BUILT_IN_PROFILES.bedrock, line)
}

/** The game profile a run spec carries (a spec written before profiles names only its profile). */
export function specProfile(spec: Pick<RunSpec, 'profile' | 'game'>): GameProfile {
  return spec.game ?? BUILT_IN_PROFILES[spec.profile] ?? BUILT_IN_PROFILES.generic
}

/** The console side of a game profile: its ready line, and when the replies it knows are complete. */
export function consoleProfile(game: GameProfile): ConsoleProfile {
  const ready = game.readyLine
  const players = game.players
  // A list reply whose names are not on its first line has them on the next one (Bedrock).
  const listExtra = players && !players.listReply.includes('?<names>') ? 1 : 0
  const profile: ConsoleProfile = {
    ready: ready === undefined ? undefined : (line) => matches(ready, consoleMessage(game, line).trim()) !== null,
    acknowledged: (command, lines) =>
      refusalIn(game, lines) === undefined && profile.replyDone(command, lines) !== false,
    replyDone(command, lines) {
      const verb = command.trim().replace(/^\//, '').toLowerCase()
      const known = game.replies.filter((reply) => reply.command.toLowerCase() === verb)
      const list = players && verb === players.listCommand.toLowerCase()
      if (!list && known.length === 0) return undefined
      const messages = lines.map((line) => consoleMessage(game, line))
      const after = (pattern: string, extra: number) => {
        const at = messages.findIndex((message) => matches(pattern, message) !== null)
        return at >= 0 && messages.length > at + extra
      }
      if (list && after(players.listReply, listExtra)) return true
      return known.some((reply) => after(reply.done, reply.extraLines ?? 0))
    },
  }
  return profile
}
