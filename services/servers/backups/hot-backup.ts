import { isSmError } from '../../../kernel/errors'
import { bedrockMessage } from '../supervisor/profiles'

/** One file a Bedrock server listed after `save query`: its path under `worlds/`, and the bytes to copy. */
export interface ListedFile {
  readonly path: string
  readonly length: number
}

/** Sends one console command and resolves with the reply lines the profile collected. */
export type Send = (command: string) => Promise<readonly string[]>

/**
 * The game's console as a hot backup needs it. `hold` and `resume` go through the supervisor,
 * which owns the hold on the caller's behalf: it resumes by itself when the caller goes away.
 */
export interface HoldConsole {
  hold(): Promise<readonly string[]>
  send: Send
  resume(): Promise<readonly string[]>
}

const READY = /Files are now ready to be copied/
const NOT_READY = /A previous save has not been completed/
const QUERY_INTERVAL_MS = 500
const QUERY_ATTEMPTS = 120

/**
 * The Bedrock hot-backup protocol (controller-notes.md section 5): `save hold`, then `save query`
 * until the file list arrives, then `copy` with exactly those files and lengths, and `save resume`
 * always, also when anything failed (but never for a hold that another process has). The server
 * keeps running throughout. An aborted `signal` (the task was cancelled) ends the wait for the
 * query or the copy at once with its reason, and the world is resumed then, without waiting for
 * the copy; the copy, passed the signal, stops and removes its output, and is waited for after.
 */
export async function withSaveHold<T>(
  game: HoldConsole,
  level: string,
  copy: (files: readonly ListedFile[]) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  let value: T
  let copying: Promise<T> | undefined
  try {
    signal?.throwIfAborted()
    const hold = await game.hold()
    if (!hold.some((line) => /Saving|already running/.test(bedrockMessage(line))))
      throw new Error(`'save hold' was not acknowledged (the server answered: ${summary(hold)})`)
    const files = await query(game.send, level, signal)
    copying = copy(files)
    value = await untilAborted(copying, signal)
  } catch (error) {
    // The first failure is the one to report; the supervisor goes on resuming if this one fails.
    if (!isSmError(error) || error.code !== 'SM_ERR_SERVER_BUSY') await game.resume().catch(() => {})
    // Cancelled mid-copy: resumed first, then the copy (passed the signal) has removed its output.
    await copying?.catch(() => {})
    throw error
  }
  const resumed = await game.resume()
  if (!resumed.some((line) => /are resumed/.test(line)))
    throw new Error(`'save resume' was not acknowledged (the server answered: ${summary(resumed)})`)
  return value
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
