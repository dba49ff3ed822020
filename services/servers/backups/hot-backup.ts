import { isSmError } from '../../../kernel/errors'
import { type HotBackupProtocol, holdCommands } from '../profiles'
import { bedrockMessage } from '../supervisor/profiles'

/** One file a Bedrock server listed after `save query`: its path under `worlds/`, and the bytes to copy. */
export interface ListedFile {
  readonly path: string
  readonly length: number
}

/**
 * Sends one console command and resolves with the reply lines the profile collected (given
 * `replyMaxMs`, a reply may take that long to complete: a world's flush; given `until`, it is
 * complete only once a message matches it or an error line).
 */
export type Send = (
  command: string,
  options?: { readonly replyMaxMs?: number; readonly until?: string },
) => Promise<readonly string[]>

/**
 * The game's console as a hot backup needs it. `hold` and `resume` go through the supervisor,
 * which owns the hold on the caller's behalf: it resumes by itself when the caller goes away.
 */
export interface HoldConsole {
  /** Holds the world: Bedrock's `save hold`, or the profile's `off` commands; their replies. */
  hold(): Promise<readonly string[]>
  send: Send
  /** Resumes it: `save resume`, or the `on` commands; their replies. */
  resume(): Promise<readonly string[]>
  /** Whether a reply says the game did the command (one whose reply the profile does not know: yes). */
  acknowledged(command: string, reply: readonly string[]): boolean
  /** Whether a message of the reply (its prefix off) matches `pattern`. */
  saw(pattern: string, reply: readonly string[]): boolean
}

const READY = /Files are now ready to be copied/
const NOT_READY = /A previous save has not been completed/
const QUERY_INTERVAL_MS = 500
const QUERY_ATTEMPTS = 120
/** How long a flush command's reply may take to complete (as long as Bedrock's query loop may take). */
const FLUSH_MAX_MS = QUERY_ATTEMPTS * QUERY_INTERVAL_MS

/**
 * The Bedrock hot-backup protocol (controller-notes.md section 5): `save hold`, then `save query`
 * until the file list arrives, then `copy` with exactly those files and lengths, and `save resume`
 * always (see `whileHeld`).
 */
export function withSaveHold<T>(
  game: HoldConsole,
  level: string,
  copy: (files: readonly ListedFile[]) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return whileHeld(
    game,
    holdCommands({ kind: 'bedrock' }),
    async () => {
      const files = await query(game.send, level, signal)
      return () => copy(files)
    },
    signal,
  )
}

/**
 * A hot backup by console commands (Java's `save-off`, `save-all flush`, `save-on`): the `off`
 * commands, then the `flush` commands, the last one's reply complete only once the protocol's
 * `done` line came (up to 60 s: else the backup fails, nothing is copied), then `copy` (the whole
 * world, which the game no longer writes), and the `on` commands always (see `whileHeld`), so
 * never before the flush ended. A protocol without `done` cannot tell: refused here (a backup
 * stops such a server instead, backups.ts).
 */
export function withSavingOff<T>(
  game: HoldConsole,
  protocol: Extract<HotBackupProtocol, { kind: 'commands' }>,
  copy: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const done = protocol.done
  if (done === undefined)
    return Promise.reject(new Error("the hot-backup commands have no done line: the flush's end cannot be told"))
  return whileHeld(
    game,
    holdCommands(protocol),
    async () => {
      for (const [index, command] of protocol.flush.entries()) {
        signal?.throwIfAborted()
        const last = index === protocol.flush.length - 1
        const reply = await untilAborted(
          game.send(command, last ? { replyMaxMs: FLUSH_MAX_MS, until: done } : {}),
          signal,
        )
        if (!game.acknowledged(command, reply))
          throw new Error(`'${command}' did not finish (the server answered: ${summary(reply)})`)
        if (last && !game.saw(done, reply))
          throw new Error(
            `'${command}' did not finish: the line that says the flush is done ('${done}') did not come in ${FLUSH_MAX_MS / 1000} s, so nothing was copied (the server answered: ${summary(reply)})`,
          )
      }
      return copy
    },
    signal,
  )
}

/**
 * Every hot backup: the world held, `prepare` (which readies the world and says how to copy it),
 * the copy, and the world resumed always, also when anything failed (but never for a hold that
 * another process has). The server keeps running throughout. An aborted `signal` (the task was
 * cancelled) ends the wait for the preparation or the copy at once with its reason, and the world
 * is resumed then, without waiting for the copy; the copy, passed the signal, stops and removes
 * its output, and is waited for after.
 */
async function whileHeld<T>(
  game: HoldConsole,
  steps: ReturnType<typeof holdCommands>,
  prepare: () => Promise<() => Promise<T>>,
  signal: AbortSignal | undefined,
): Promise<T> {
  let value: T
  let copying: Promise<T> | undefined
  try {
    signal?.throwIfAborted()
    const hold = await game.hold()
    unacknowledged(game, steps.hold, hold)
    const copy = await prepare()
    copying = copy()
    value = await untilAborted(copying, signal)
  } catch (error) {
    // The first failure is the one to report; the supervisor goes on resuming if this one fails.
    if (!isSmError(error) || error.code !== 'SM_ERR_SERVER_BUSY') await game.resume().catch(() => {})
    // Cancelled mid-copy: resumed first, then the copy (passed the signal) has removed its output.
    await copying?.catch(() => {})
    throw error
  }
  unacknowledged(game, steps.resume, await game.resume())
  return value
}

/** Throws when the reply does not acknowledge every one of `commands`. */
function unacknowledged(game: HoldConsole, commands: readonly string[], reply: readonly string[]): void {
  const missing = commands.find((command) => !game.acknowledged(command, reply))
  if (missing !== undefined)
    throw new Error(`'${missing}' was not acknowledged (the server answered: ${summary(reply)})`)
}

async function query(send: Send, level: string, signal: AbortSignal | undefined): Promise<ListedFile[]> {
  for (let attempt = 0; attempt < QUERY_ATTEMPTS; attempt++) {
    signal?.throwIfAborted()
    const reply = (await untilAborted(send('save query'), signal)).map(bedrockMessage)
    const at = reply.findIndex((line) => READY.test(line))
    if (at >= 0) {
      const list = reply.slice(at + 1).find((line) => /:\d+/.test(line))
      if (list === undefined) throw new Error("'save query' said the files are ready but sent no file list")
      return parseFileList(list, level)
    }
    if (!reply.some((line) => NOT_READY.test(line)) && reply.length > 0)
      throw new Error(`'save query' was not understood (the server answered: ${summary(reply)})`)
    await untilAborted(new Promise((resolve) => setTimeout(resolve, QUERY_INTERVAL_MS)), signal)
  }
  throw new Error(
    `the server did not finish preparing the backup after ${(QUERY_ATTEMPTS * QUERY_INTERVAL_MS) / 1000} s`,
  )
}

/**
 * Parses `Bedrock level/db/000005.ldb:455, Bedrock level/db/CURRENT:16, ...`: split on `, `,
 * joining back pieces that do not end in `:<digits>` (names may contain `, `), with the last `:`
 * as the separator. Every path must lie in the world (`<level>/...`), with no `..` and not absolute.
 */
export function parseFileList(line: string, level: string): ListedFile[] {
  const tokens: string[] = []
  let pending = ''
  for (const piece of line.trim().split(', ')) {
    pending = pending ? `${pending}, ${piece}` : piece
    if (/:\d+$/.test(pending)) {
      tokens.push(pending)
      pending = ''
    }
  }
  if (pending) throw new Error(`the file list ends in something that is not 'path:length' ('${pending.slice(0, 80)}')`)
  return tokens.map((token) => {
    const colon = token.lastIndexOf(':')
    const path = token.slice(0, colon)
    const length = Number(token.slice(colon + 1))
    const parts = path.split('/')
    if (path.startsWith('/') || parts.includes('..') || parts[0] !== level || parts.length < 2)
      throw new Error(`the file list names '${path}', which is not inside the world '${level}'`)
    return { path, length }
  })
}

/** `work`, or the signal's reason as soon as it is aborted (the work is left to end on its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  if (signal.aborted) {
    work.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      work.catch(() => {})
      reject(signal.reason)
    }
    signal.addEventListener('abort', abort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', abort)
        reject(error)
      },
    )
  })
}

function summary(lines: readonly string[]): string {
  return lines.length ? lines.slice(0, 3).join(' | ') : 'nothing'
}
