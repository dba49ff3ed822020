/** How a kind of game server talks on its console: when it is ready, and what its replies look like. */
export interface ConsoleProfile {
  /** The line that says the server is up; none: it counts as running once its process exists. */
  readonly ready: ((line: string) => boolean) | undefined
  /** When a command's reply is complete, for the commands whose replies the profile knows. */
  replyDone(command: string, lines: readonly string[]): boolean | undefined
}

/**
 * A Bedrock log line's message without its prefix. All of these occur in real logs:
 * `[2022-07-17 02:32:53:104 INFO] x`, `[2020-04-14 10:55:15 INFO] x`, `[INFO] x`, `NO LOG FILE! - [INFO] x`.
 */
export function bedrockMessage(line: string): string {
  const match =
    /^(?:NO LOG FILE! - )?\[(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?::\d{1,3})? )?(?:INFO|WARN|ERROR)\] ?(.*)$/.exec(line)
  return match ? (match[1] ?? '') : line
}

const bedrock: ConsoleProfile = {
  ready: (line) => bedrockMessage(line).trim() === 'Server started.',
  replyDone(command, lines) {
    const messages = lines.map(bedrockMessage)
    const verb = command.trim().replace(/^\//, '').toLowerCase()
    const after = (pattern: RegExp, extra: number) => {
      const at = messages.findIndex((m) => pattern.test(m))
      return at >= 0 && messages.length > at + extra
    }
    if (verb === 'list') return after(/^There are \d+\/\d+ players online/, 1)
    if (verb === 'save hold') return after(/^Saving|already running/, 0)
    if (verb === 'save query')
      return after(/A previous save has not been completed/, 0) || after(/Files are now ready to be copied/, 1)
    if (verb === 'save resume') return after(/are resumed/, 0)
    return undefined
  },
}

const generic: ConsoleProfile = { ready: undefined, replyDone: () => undefined }

export function consoleProfile(profile: 'bedrock' | 'generic'): ConsoleProfile {
  return profile === 'bedrock' ? bedrock : generic
}
