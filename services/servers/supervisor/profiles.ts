import {
  BUILT_IN_PROFILES,
  consoleMessage,
  type GameProfile,
  isChat,
  isErrorLine,
  knownReplyDone,
  matches,
  refusalIn,
} from '../profiles'
import type { RunSpec } from './run-files'

/** How a kind of game server talks on its console: when it is ready, and what its replies look like. */
export interface ConsoleProfile {
  /** The line that says the server is up; none: it counts as running once its process exists. */
  readonly ready: ((line: string) => boolean) | undefined
  /** Whether a line is a player's chat: never part of a reply. */
  chat(line: string): boolean
  /**
   * When a command's reply is complete: for the commands whose replies the profile knows; given
   * `until` (a hot backup's done line), once a message matches it or one of the error lines (never
   * undefined then: the console falling quiet does not end it).
   */
  replyDone(command: string, lines: readonly string[], until?: string): boolean | undefined
  /**
   * Whether `lines` say the game did `command`: its known reply came, or (a reply the profile
   * does not know) no line is one of its error lines.
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

/** The console side of a game profile: its ready line, its chat, and when the replies it knows are complete. */
export function consoleProfile(game: GameProfile): ConsoleProfile {
  const ready = game.readyLine
  return {
    ready: ready === undefined ? undefined : (line) => matches(ready, consoleMessage(game, line).trim()) !== null,
    chat: (line) => isChat(game, line),
    acknowledged: (command, lines) =>
      refusalIn(game, lines, command) === undefined && knownReplyDone(game, command, lines) !== false,
    replyDone(command, lines, until) {
      if (until === undefined) return knownReplyDone(game, command, lines)
      return lines.some((line) => {
        const message = consoleMessage(game, line).trim()
        return matches(until, message) !== null || isErrorLine(game, message)
      })
    },
  }
}
