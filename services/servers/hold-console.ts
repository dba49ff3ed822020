import { ownProcess } from '../../lib/process-identity'
import type { HoldConsole } from './backups/hot-backup'
import { consoleMessage, type GameProfile, matches } from './profiles'
import type { RequestFields, SupervisorClient } from './supervisor/client'
import { consoleProfile } from './supervisor/profiles'
import type { SendReply } from './supervisor/protocol'

/** How often a hot backup's console request is made when its supervisor's connection is lost. */
const LOST_CONNECTION_ATTEMPTS = 3

/**
 * The console as a hot backup needs it (hold, the commands between, resume: `profile`'s, the one
 * the game runs with), straight to the game, not through the command_send hooks. The supervisor
 * holds the world on this process's behalf and resumes it by itself when this process goes away.
 * A supervisor that dies meanwhile is replaced (`connect` adopts the game, and the new supervisor
 * keeps the hold while this process lives) and the request is made again: hold, query, flush and
 * resume can each be repeated.
 */
export async function withHold<T>(
  connect: () => Promise<SupervisorClient>,
  profile: GameProfile,
  fn: (game: HoldConsole) => Promise<T>,
): Promise<T> {
  let client = await connect()
  const holder = ownProcess()
  const ask = async <O extends 'hold' | 'send' | 'resume'>(op: O, fields: RequestFields<O>) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return ((await client.request(op, fields)) as SendReply).reply
      } catch (error) {
        // The connection was lost: made again. A killed supervisor whose main thread has ended
        // can still accept on its socket until its last threads are gone, and then drops that
        // connection too; the socket is gone with it, so the attempt after adopts the game.
        if (!client.closed || attempt >= LOST_CONNECTION_ATTEMPTS) throw error
        client = await connect()
      }
    }
  }
  const replies = consoleProfile(profile)
  try {
    return await fn({
      hold: () => ask('hold', { holder }),
      send: (command, options) => ask('send', { command, collect: true, ...options }),
      resume: () => ask('resume', {}),
      acknowledged: (command, reply) => replies.acknowledged(command, reply),
      saw: (pattern, reply) => reply.some((line) => matches(pattern, consoleMessage(profile, line).trim()) !== null),
    })
  } finally {
    client.close()
  }
}
