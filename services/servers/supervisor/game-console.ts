import { execFileSync } from 'node:child_process'
import { closeSync, constants, existsSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { reasonOf, SmError } from '../../../kernel/errors'
import { cleanConsoleLine } from '../../../lib/console-text'
import type { Connection } from '../../../lib/json-lines'
import { LogTail, lastConsoleLines } from '../../../lib/log-tail'
import { ACTIVE } from '../contract/constants'
import { patternProblem } from '../profiles'
import type { ConsoleProfile } from './profiles'
import type { SendReply, SupervisorMessage, SupervisorRequest } from './protocol'
import type { RunFiles, RunSpec } from './run-files'
import type { RunRecord } from './run-record'

/** Lines kept for new followers. */
const RING = 200
/** How long a reply is collected: until the profile says it is complete, or quiet for a while. */
const REPLY_QUIET_MS = 300
export const REPLY_MAX_MS = 3_000

/** A connection to a supervisor's socket, as the supervisor sees it. */
export type Conn = Connection<SupervisorRequest, SupervisorMessage>

/**
 * A run's console: its input (the FIFO the game reads, written one command at a time), its output
 * (`console.log`, followed from an offset, each line to the followers and the profile), and the
 * replies to commands, collected from the lines that follow them.
 */
export class GameConsole {
  readonly #files: RunFiles
  readonly #spec: RunSpec
  readonly #profile: ConsoleProfile
  readonly #record: RunRecord
  /** What a console command that is the stop command does instead of being written: a stop. */
  readonly #stop: () => void
  readonly #subscribers = new Set<Conn>()
  readonly #collectors = new Set<(line: string) => void>()
  readonly #ring: string[] = []
  #tail: LogTail | undefined

  constructor(files: RunFiles, spec: RunSpec, profile: ConsoleProfile, record: RunRecord, stop: () => void) {
    this.#files = files
    this.#spec = spec
    this.#profile = profile
    this.#record = record
    this.#stop = stop
  }

  /** Makes the FIFO the game reads its console from (anything else in its place goes). */
  prepareInput(): void {
    const fifo = this.#files.fifo
    if (existsSync(fifo) && !statSync(fifo).isFIFO()) rmSync(fifo)
    if (!existsSync(fifo)) execFileSync('mkfifo', ['-m', '600', fifo])
  }

  /** Follows the console log from `offset` (once: a restart's lines come after its predecessor's). */
  follow(offset: number): void {
    if (this.#tail) return
    this.#tail = new LogTail(this.#files.log, offset, (line) => this.#line(line)).start()
  }

  /** Reads what the log holds now: its last lines reach the followers before whatever comes next. */
  poll(): void {
    this.#tail?.poll()
  }

  /** Stops following the log (the run has ended). */
  stopFollowing(): void {
    this.#tail?.stop()
  }

  /** A console line, as plain text (the log file keeps its raw bytes), to everyone who follows it and to the profile. */
  #line(raw: string): void {
    const line = cleanConsoleLine(raw)
    this.#ring.push(line)
    if (this.#ring.length > RING) this.#ring.shift()
    for (const collector of this.#collectors) collector(line)
    this.broadcast({ t: 'line', line })
    if (this.#record.phase === 'starting' && this.#profile.ready?.(line))
      this.#record.enter('ready', { reason: 'ready' })
  }

  /** Follows the console: its lines, status changes and samples go to `connection` from now on. */
  subscribe(connection: Conn): void {
    this.#subscribers.add(connection)
  }

  unsubscribe(connection: Conn): void {
    this.#subscribers.delete(connection)
  }

  /** A message to every follower. */
  broadcast(message: SupervisorMessage): void {
    for (const subscriber of this.#subscribers) subscriber.send(message)
  }

  /** Closes every follower's connection (the supervisor ends). */
  closeFollowers(): void {
    for (const subscriber of this.#subscribers) subscriber.close()
  }

  /** The last `tail` lines (from the log when more than the ring holds), or with `'run'` every line this run has read. */
  lastLines(tail: number | 'run' | undefined): string[] {
    if (tail === 'run') return [...this.#ring]
    const count = Math.max(0, Math.min(Number(tail ?? 0) || 0, 10_000))
    if (!count) return []
    return count <= this.#ring.length
      ? this.#ring.slice(this.#ring.length - count)
      : lastConsoleLines(this.#files.log, count)
  }

  /** Writes one line to the game's console (non-blocking: a stalled game is "busy", never a hang). */
  write(command: string): void {
    let fd: number
    try {
      fd = openSync(this.#files.fifo, constants.O_WRONLY | constants.O_NONBLOCK)
    } catch (error) {
      throw new SmError('SM_ERR_SERVER_CONSOLE_UNAVAILABLE', {
        server: this.#spec.name,
        reason: (error as NodeJS.ErrnoException).code === 'ENXIO' ? 'the game is not reading it' : reasonOf(error),
      })
    }
    try {
      writeSync(fd, `${command}\n`)
    } catch (error) {
      throw new SmError('SM_ERR_SERVER_CONSOLE_UNAVAILABLE', {
        server: this.#spec.name,
        reason:
          (error as NodeJS.ErrnoException).code === 'EAGAIN'
            ? 'its input is full (the game is not reading)'
            : reasonOf(error),
      })
    } finally {
      closeSync(fd)
    }
  }

  /**
   * Sends a command; collected, its reply: the lines the game printed after it (a player's chat
   * is not), until the profile says the reply is complete (with `until`: a message matches it or
   * an error line), or, for a reply it does not know, the console is quiet for a moment.
   */
  async send(command: string, collect: boolean, maxMs = REPLY_MAX_MS, until?: string): Promise<SendReply> {
    if (until !== undefined && patternProblem(until))
      throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', {
        server: this.#spec.name,
        reason: `the line to wait for ('${until}') is not usable: ${patternProblem(until)}`,
      })
    const state = this.#record.state
    if (!ACTIVE.includes(state.status) || !state.game)
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', {
        server: this.#spec.name,
        status: state.status,
        action: 'take commands',
      })
    if (isStopCommand(command, this.#spec.stopCommand)) {
      this.#stop()
      return { sent: true, reply: [] }
    }
    if (!collect) {
      this.write(command)
      return { sent: true, reply: [] }
    }
    const lines: string[] = []
    let done!: () => void
    const finished = new Promise<void>((resolve) => {
      done = resolve
    })
    let quiet: NodeJS.Timeout | undefined
    const collector = (line: string) => {
      if (this.#profile.chat(line)) return
      lines.push(line)
      const complete = this.#profile.replyDone(command, lines, until)
      if (complete) return done()
      if (complete === undefined) {
        clearTimeout(quiet)
        quiet = setTimeout(done, REPLY_QUIET_MS)
      }
    }
    this.#collectors.add(collector)
    const cap = setTimeout(done, maxMs)
    try {
      this.write(command)
      if (this.#profile.replyDone(command, [], until) === undefined) quiet = setTimeout(done, REPLY_QUIET_MS)
      await finished
    } finally {
      this.#collectors.delete(collector)
      clearTimeout(cap)
      clearTimeout(quiet)
    }
    return { sent: true, reply: lines }
  }
}

function isStopCommand(command: string, stopCommand: string): boolean {
  const norm = (s: string) => s.trim().replace(/^\//, '').toLowerCase()
  return norm(command) === norm(stopCommand)
}
