/**
 * A server's supervisor: one per running game server, inside the host agent (agent.ts), the one
 * process that supervises every game of the data directory. It starts the game with its console
 * input on a FIFO (opened read-write, so the game never sees EOF) and its output appended to
 * `console.log`, so the game outlives the agent and everything else; it serves the run's 0600
 * UNIX socket (status, send, follow, stop, kill), tracks the status, restarts the game after a
 * crash per the policy, and ends when the game has stopped for good.
 */
import { type ChildProcess, execFileSync, type StdioOptions, spawn } from 'node:child_process'
import {
  appendFileSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs'
import type { Server, Socket } from 'node:net'
import { isSmError, reasonOf, SmError } from '../../../kernel/errors'
import { cleanConsoleLine } from '../../../lib/console-text'
import { Connection } from '../../../lib/json-lines'
import { LogTail, lastConsoleLines } from '../../../lib/log-tail'
import { gameAlive, leftovers } from '../../../lib/process-group'
import { isSameProcess, ownProcess, processIdentity, sealedStdio } from '../../../lib/process-identity'
import { holdCommands, patternProblem } from '../profiles'
import { crashVerdict } from './crash-policy'
import { type ConsoleProfile, consoleProfile, specProfile } from './profiles'
import type { Announcement, ExitReply, RunStatus, SendReply, SupervisorMessage, SupervisorRequest } from './protocol'
import {
  ACTIVE,
  type HoldRecord,
  type ProcessRef,
  type RunFiles,
  type RunSpec,
  type RunState,
  runStatusOf,
  type ServerStatus,
  type StatusEntry,
} from './run-files'
import { FINAL, LIVE, type RunEvent, RunMachine, STATUS_OF } from './run-machine'
import { Sampler } from './sampler'
import { claimSocket } from './socket-claim'

/** How often an adopted game (not our child, so no exit event) is checked. */
const ADOPTED_POLL_MS = 250
const LOG_CHECK_MS = 10_000
/** Lines kept for new followers. */
const RING = 200
/** How long a reply is collected: until the profile says it is complete, or quiet for a while. */
const REPLY_QUIET_MS = 300
const REPLY_MAX_MS = 3_000
/** The longest a request may ask a reply to take (`replyMaxMs`: a hot backup's flush). */
const REPLY_LONGEST_MS = 600_000

/** How often a hold's holder is checked, once no connection of its own stands for it. */
const HOLD_POLL_MS = 250
/** How soon a run file that could not be written (a full disk) is tried again. */
const PERSIST_RETRY_MS = 1_000

/** What a supervisor is given besides its run: its starter's environment, and whom to tell when it has ended. */
export interface SupervisorOptions {
  /** The starter's values of PASSED_ENV (protocol.ts); then the profile's and the server's own apply. */
  readonly env: Readonly<Record<string, string>>
  /** Called once its run has ended and its socket is gone. */
  readonly onEnd: () => void
}

type Conn = Connection<SupervisorRequest, SupervisorMessage>

/**
 * A world held for a hot backup: who holds it, the commands that resume it, and through which
 * connection (none after an adoption, until the holder comes back). `orphaned` once that
 * connection closed without a resume.
 */
interface Hold {
  readonly record: HoldRecord
  connection: Conn | undefined
  orphaned: boolean
}

export class Supervisor {
  readonly #files: RunFiles
  readonly #spec: RunSpec
  readonly #options: SupervisorOptions
  readonly #profile: ConsoleProfile
  #state: RunState
  /** Where the run is: every change goes through its declared transitions (run-machine.ts). */
  readonly #run: RunMachine
  #adopted = false
  #escalated: ExitReply['escalated']
  #timers: NodeJS.Timeout[] = []
  #restartTimer: NodeJS.Timeout | undefined
  #adoptedPoll: NodeJS.Timeout | undefined
  /** Set while what is left of an ended leader's group is being ended (#leaderEnded). */
  #draining: NodeJS.Timeout | undefined
  #logCheck: NodeJS.Timeout | undefined
  #exitWaiters: ((reply: ExitReply) => void)[] = []
  #subscribers = new Set<Conn>()
  #collectors = new Set<(line: string) => void>()
  #ring: string[] = []
  #tail: LogTail | undefined
  #server: Server | undefined
  #owner: Conn | undefined
  #finished = false
  #hold: Hold | undefined
  #holdWatch: NodeJS.Timeout | undefined
  #resuming: Promise<SendReply> | undefined
  /** state.json is behind #state; journal entries not yet appended (a full disk): written by #persist. */
  #stateUnwritten = false
  #journalUnwritten: Omit<StatusEntry, 'seq'>[] = []
  #persistRetry: NodeJS.Timeout | undefined
  #persistTrouble: string | undefined
  #closing = false
  /** Samples the game's resource use, when the spec asks for it. */
  #sampler: Sampler | undefined

  constructor(files: RunFiles, spec: RunSpec, options: SupervisorOptions) {
    this.#files = files
    this.#spec = spec
    this.#options = options
    this.#profile = consoleProfile(specProfile(spec))
    this.#run = new RunMachine(spec.name)
    const recorded = files.readState()
    this.#state = recorded ?? {
      status: 'stopped',
      since: new Date().toISOString(),
      supervisor: undefined,
      game: undefined,
      mode: spec.mode,
      restarts: 0,
      exitCode: null,
      signal: null,
      reason: undefined,
    }
  }

  /** The status its run shows now. */
  get status(): ServerStatus {
    return this.#state.status
  }

  /**
   * Binds the socket, then adopts the recorded game if it still runs, else starts it. Only to
   * `adopt`, a game that has ended (between the caller's look and now) is refused, and nothing
   * starts: the caller's look records its end and applies the restart policy to it, once.
   */
  async run(purpose: 'run' | 'adopt' = 'run'): Promise<Announcement> {
    await this.#listen()
    const recorded = this.#state.game
    if (purpose === 'adopt' && !(recorded && gameAlive(recorded.pid, recorded.identity))) {
      this.#server?.close()
      rmSync(this.#files.socket, { force: true })
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', {
        server: this.#spec.name,
        status: 'no longer running',
        action: 'be adopted',
      })
    }
    this.#state = {
      ...this.#state,
      supervisor: ownProcess(),
    }
    const game = this.#state.game
    const hold = this.#files.readHold()
    if (game && gameAlive(game.pid, game.identity)) {
      this.#adopt(game.startedAt)
      // A hold the supervisor before us took: kept while its holder lives, resumed at once if it is gone.
      if (hold) {
        this.#hold = { record: hold, connection: undefined, orphaned: false }
        this.#watchHold()
      }
    } else {
      this.#files.writeHold(undefined) // a new game process holds nothing
      // A start, or the restart of a crash found after the fact, which counts in its streak.
      const restarts = this.#spec.crashRestart ?? 0
      this.#state = { ...this.#state, mode: this.#spec.mode, restarts }
      this.#launch(restarts > 0 ? restartReason(restarts, this.#spec.restart.maxRestarts) : undefined)
    }
    this.#stateUnwritten = true
    this.#persist()
    this.#logCheck = setInterval(() => this.#rotateLogLater(), LOG_CHECK_MS)
    this.#startSampling()
    return { ok: true, adopted: this.#adopted, status: this.#state.status }
  }

  async #listen(): Promise<void> {
    this.#server = await claimSocket(
      this.#files.socket,
      this.#files.listenLock,
      (socket) => this.#accept(socket),
      () => this.#supervised(),
      () => this.#files.readState()?.supervisor,
    )
  }

  #supervised(): SmError {
    const other = this.#files.readState()?.supervisor
    return new SmError('SM_ERR_SERVER_SUPERVISED', { server: this.#spec.name, pid: String(other?.pid ?? 'unknown') })
  }

  // ---- the game process ----

  #launch(reason: string | undefined): void {
    this.#escalated = undefined
    const spec = this.#spec
    try {
      this.#ensureFifo()
    } catch (error) {
      this.#failed(`its console could not be prepared: ${reasonOf(error)}`)
      return
    }
    // A log that cannot be rotated now (a full disk) is appended to: a game is not kept down for it.
    this.#rotateLogLater()
    const input = openSync(this.#files.fifo, constants.O_RDWR)
    const output = openSync(this.#files.log, 'a', 0o600)
    const nothing = openSync('/dev/null', 'r+')
    const offset = this.#files.logSize()
    this.#follow(offset)
    let child: ChildProcess
    try {
      child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...this.#options.env, ...(spec.profile === 'bedrock' ? { LD_LIBRARY_PATH: '.' } : {}), ...spec.env },
        stdio: sealedStdio([input, output, output], nothing) as StdioOptions,
        detached: true,
      })
    } catch (error) {
      this.#failed(`the command '${spec.command}' could not be run: ${reasonOf(error)}`)
      return
    } finally {
      closeSync(input)
      closeSync(output)
      closeSync(nothing)
    }
    if (child.pid === undefined) {
      child.once('error', (error) => this.#failed(`the command '${spec.command}' could not be run: ${reasonOf(error)}`))
      return
    }
    child.on('error', () => {}) // a failed signal; the exit event tells the rest
    this.#adopted = false
    const startedAt = new Date().toISOString()
    const game = { pid: child.pid, identity: processIdentity(child.pid), startedAt, logOffset: offset }
    this.#state = { ...this.#state, game, exitCode: null, signal: null }
    child.once('exit', (code, signal) => this.#leaderEnded(code, signal))
    this.#enter(this.#profile.ready ? 'launch' : 'launch-ready', { reason: reason ?? `started (PID ${child.pid})` })
  }

  #adopt(startedAt: string): void {
    this.#adopted = true
    const game = this.#state.game
    if (!game) return
    // A game that was still starting is read from where it started, to find its ready line.
    const starting = this.#state.status === 'starting'
    const from = starting ? game.logOffset : this.#files.logSize()
    this.#follow(from)
    this.#enter(starting ? 'adopt-starting' : 'adopt', { reason: `adopted (PID ${game.pid}, started ${startedAt})` })
    // Its leader, not the rest of its group: a group whose leader is gone is ended (#leaderEnded).
    this.#adoptedPoll = setInterval(() => {
      if (!isSameProcess(game.pid, game.identity)) this.#leaderEnded(null, null)
    }, ADOPTED_POLL_MS)
  }

  #failed(reason: string): void {
    this.#state = { ...this.#state, game: undefined }
    this.#enter('launch-failed', { reason })
  }

  #ensureFifo(): void {
    const fifo = this.#files.fifo
    if (existsSync(fifo) && !statSync(fifo).isFIFO()) rmSync(fifo)
    if (!existsSync(fifo)) execFileSync('mkfifo', ['-m', '600', fifo])
  }

  #follow(offset: number): void {
    if (this.#tail) return
    this.#tail = new LogTail(this.#files.log, offset, (line) => this.#line(line)).start()
  }

  /** A console line, as plain text (the log file keeps its raw bytes), to everyone who follows it and to the profile. */
  #line(raw: string): void {
    const line = cleanConsoleLine(raw)
    this.#ring.push(line)
    if (this.#ring.length > RING) this.#ring.shift()
    for (const collector of this.#collectors) collector(line)
    for (const subscriber of this.#subscribers) subscriber.send({ t: 'line', line })
    if (this.#run.phase === 'starting' && this.#profile.ready?.(line)) this.#enter('ready', { reason: 'ready' })
  }

  /**
   * The process the run started ended. The rest of its group (a wrapper's game, a start script's
   * children) is ended before anything else happens, as a stop would end it (the stop command
   * unless one was sent, then SIGTERM, then SIGKILL): a restart never runs beside a survivor, and
   * a survivor never keeps reading the console. The run ends once the whole group has.
   */
  #leaderEnded(code: number | null, signal: NodeJS.Signals | null): void {
    const game = this.#state.game
    if (!game || this.#draining) return
    const left = leftovers(game.pid, game.identity)
    if (left.length === 0) {
      this.#exited(code, signal)
      return
    }
    if (this.#adoptedPoll) clearInterval(this.#adoptedPoll)
    this.#adoptedPoll = undefined
    this.#log(
      `its process ${game.pid} ended (${describeExit(code, signal)}), leaving ${left.length} of its process group (PID ${left.join(', ')}): ending them first`,
    )
    if (this.#run.phase !== 'stopping' && this.#run.phase !== 'killing') this.#askToEnd()
    this.#draining = setInterval(() => {
      if (leftovers(game.pid, game.identity).length > 0) return
      clearInterval(this.#draining)
      this.#draining = undefined
      this.#exited(code, signal)
    }, ADOPTED_POLL_MS)
  }

  /** The stop command (SIGTERM when the console cannot take it), then SIGTERM and SIGKILL at the stop's timeouts. */
  #askToEnd(): void {
    const { stopTimeoutMs, termTimeoutMs } = this.#spec
    try {
      this.#write(this.#spec.stopCommand)
    } catch {
      this.#signal('SIGTERM') // no console: the next best polite request
    }
    this.#timers.push(
      setTimeout(() => this.#signal('SIGTERM'), stopTimeoutMs),
      setTimeout(() => this.#signal('SIGKILL'), stopTimeoutMs + termTimeoutMs),
    )
  }

  #exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.#state.game) return
    this.#tail?.poll() // the game's last words reach followers before the status does
    if (this.#adoptedPoll) clearInterval(this.#adoptedPoll)
    this.#adoptedPoll = undefined
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers = []
    if (this.#hold) this.#releaseHold() // the held process is gone; a restarted one is not held
    const game = this.#state.game
    this.#state = { ...this.#state, game: undefined, exitCode: code, signal }
    const how = this.#adopted && code === null && signal === null ? 'ended' : describeExit(code, signal)
    const reply: ExitReply = { exitCode: code, signal, escalated: this.#escalated }
    const asked = this.#run.can('exit-asked')
    if (asked || code === 0) {
      const why = this.#run.phase === 'killing' ? 'killed' : asked ? 'stopped' : 'exited by itself'
      this.#settleWaiters(reply)
      this.#enter(asked ? 'exit-asked' : 'exit-clean', { reason: `${why}: ${how}`, exitCode: code, signal })
      return
    }
    // A crash. A run longer than the minimum uptime starts a new streak.
    const { restart } = this.#spec
    const { restarts, willRestart } = crashVerdict(
      restart,
      this.#state.restarts,
      Date.now() - Date.parse(game.startedAt),
    )
    this.#state = { ...this.#state, restarts }
    this.#settleWaiters(reply)
    const extra = { reason: `crashed: ${how}`, exitCode: code, signal, restarts, willRestart }
    this.#enter(willRestart ? 'crash-restart' : 'crash', extra)
    if (!willRestart) return
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined
      this.#launch(restartReason(restarts, restart.maxRestarts))
    }, restart.delayMs)
  }

  #settleWaiters(reply: ExitReply): void {
    const waiters = this.#exitWaiters
    this.#exitWaiters = []
    for (const waiter of waiters) waiter(reply)
  }

  #signal(signal: NodeJS.Signals): void {
    const game = this.#state.game
    if (!game || !gameAlive(game.pid, game.identity)) return
    this.#escalated = signal === 'SIGKILL' || signal === 'SIGTERM' ? signal : this.#escalated
    try {
      // Its process group (the game was started detached, so it leads one): a start script's children too.
      process.kill(-game.pid, signal)
    } catch {
      try {
        process.kill(game.pid, signal)
      } catch {}
    }
  }

  /**
   * Makes the run's transition for `event` (refused with SM_ERR_SERVER_TRANSITION_ILLEGAL when it
   * cannot happen now), writes the status its new phase shows, and ends the supervisor after a
   * final one.
   */
  #enter(
    event: RunEvent,
    extra: Partial<Pick<StatusEntry, 'reason' | 'exitCode' | 'signal' | 'restarts' | 'willRestart'>> = {},
  ): void {
    const { to, quiet } = this.#run.apply(event)
    const status = STATUS_OF[to]
    if (status !== undefined && !(quiet && status === this.#state.status)) this.#setStatus(status, extra)
    if (FINAL.includes(to)) this.#finish()
  }

  #setStatus(
    status: ServerStatus,
    extra: Partial<Pick<StatusEntry, 'reason' | 'exitCode' | 'signal' | 'restarts' | 'willRestart'>>,
  ): void {
    const at = new Date().toISOString()
    const change = { at, status, previous: this.#state.status, ...extra }
    this.#state = { ...this.#state, status, since: at, reason: extra.reason }
    this.#stateUnwritten = true
    this.#journalUnwritten.push(change)
    // The entry as the journal will number it (its unwritten predecessors before it).
    const seq = this.#files.lastJournalSeq() + this.#journalUnwritten.length
    this.#persist()
    for (const subscriber of this.#subscribers) subscriber.send({ t: 'status', entry: { seq, ...change } })
  }

  /**
   * Writes state.json and the journal entries not yet written. A write that fails (a full disk)
   * never ends the supervisor, which would end the game it watches: the state stays in memory
   * (status answers from it), the failure is said once, and the write is tried again until it works.
   */
  #persist(): boolean {
    try {
      if (this.#stateUnwritten) {
        this.#files.writeState(this.#state)
        this.#stateUnwritten = false
      }
      while (this.#journalUnwritten.length > 0) {
        this.#files.appendJournal(this.#journalUnwritten[0] as Omit<StatusEntry, 'seq'>)
        this.#journalUnwritten.shift()
      }
    } catch (error) {
      if (this.#persistTrouble === undefined)
        this.#log(
          `its run files cannot be written (${reasonOf(error)}); its state is kept in memory and written once they can`,
        )
      this.#persistTrouble = reasonOf(error)
      this.#persistRetry ??= setTimeout(() => {
        this.#persistRetry = undefined
        this.#persist()
      }, PERSIST_RETRY_MS)
      return false
    }
    if (this.#persistTrouble !== undefined) this.#log('its run files are written again')
    this.#persistTrouble = undefined
    if (this.#finished) this.#close()
    return true
  }

  // ---- power ----

  #stop(): Promise<ExitReply> {
    const waiting = new Promise<ExitReply>((resolve) => this.#exitWaiters.push(resolve))
    if (this.#run.can('stop-restart')) {
      clearTimeout(this.#restartTimer)
      this.#restartTimer = undefined
      this.#settleWaiters({ exitCode: this.#state.exitCode, signal: this.#state.signal, escalated: undefined })
      this.#enter('stop-restart', { reason: 'stopped while waiting to restart after a crash' })
      return waiting
    }
    // Already on its way out: the exit answers every waiter.
    if (this.#run.phase === 'stopping' || this.#run.phase === 'killing') return waiting
    this.#enter('stop', { reason: 'stop requested' })
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers = []
    this.#askToEnd()
    return waiting
  }

  #kill(): Promise<ExitReply> {
    if (this.#run.can('stop-restart')) return this.#stop()
    const waiting = new Promise<ExitReply>((resolve) => this.#exitWaiters.push(resolve))
    this.#enter('kill')
    this.#signal('SIGKILL')
    return waiting
  }

  /** Writes one line to the game's console (non-blocking: a stalled game is "busy", never a hang). */
  #write(command: string): void {
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
  async #send(command: string, collect: boolean, maxMs = REPLY_MAX_MS, until?: string): Promise<SendReply> {
    if (until !== undefined && patternProblem(until))
      throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', {
        server: this.#spec.name,
        reason: `the line to wait for ('${until}') is not usable: ${patternProblem(until)}`,
      })
    if (!ACTIVE.includes(this.#state.status) || !this.#state.game)
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', {
        server: this.#spec.name,
        status: this.#state.status,
        action: 'take commands',
      })
    if (isStopCommand(command, this.#spec.stopCommand)) {
      void this.#stop()
      return { sent: true, reply: [] }
    }
    if (!collect) {
      this.#write(command)
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
      this.#write(command)
      if (this.#profile.replyDone(command, [], until) === undefined) quiet = setTimeout(done, REPLY_QUIET_MS)
      await finished
    } finally {
      this.#collectors.delete(collector)
      clearTimeout(cap)
      clearTimeout(quiet)
    }
    return { sent: true, reply: lines }
  }

  // ---- holding the world for a hot backup ----

  /**
   * Holds the world for `holder`, owned by `connection` (the same holder coming back after an
   * adoption takes its hold over): the profile's hold commands (Bedrock `save hold`, or the `off`
   * commands), their replies answered. The commands that resume it are recorded with the hold.
   */
  async #holdWorld(connection: Conn, holder: ProcessRef): Promise<SendReply> {
    const protocol = specProfile(this.#spec).hotBackup
    if (!protocol)
      throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', {
        server: this.#spec.name,
        reason: `this ${this.#spec.profile} server has no hot-backup commands to hold its world with (server add --hot-backup 'off;flush;on')`,
      })
    const held = this.#hold
    const other = held?.record.holder
    if (
      held &&
      other &&
      !held.orphaned &&
      (other.pid !== holder.pid || other.identity !== holder.identity) &&
      isSameProcess(other.pid, other.identity)
    )
      throw new SmError('SM_ERR_SERVER_BUSY', {
        server: this.#spec.name,
        action: 'hot backup',
        pid: String(other.pid),
        since: held.record.since,
      })
    const { hold, resume } = holdCommands(protocol)
    const record: HoldRecord = { holder, since: new Date().toISOString(), resume }
    // Recorded before the game is held: a supervisor that dies right after leaves it known.
    this.#files.writeHold(record)
    this.#hold = { record, connection, orphaned: false }
    this.#watchHold()
    const reply: string[] = []
    for (const [index, command] of hold.entries()) {
      try {
        reply.push(...(await this.#send(command, true)).reply)
      } catch (error) {
        // Nothing was sent: nothing to resume.
        if (index === 0 && isSmError(error) && error.code === 'SM_ERR_SERVER_CONSOLE_UNAVAILABLE') this.#releaseHold()
        throw error
      }
    }
    return { sent: true, reply }
  }

  /** The resume commands, up to three times; the hold is over once they are acknowledged. One at a time. */
  #resume(): Promise<SendReply> {
    this.#resuming ??= this.#sendResume().finally(() => {
      this.#resuming = undefined
    })
    return this.#resuming
  }

  async #sendResume(): Promise<SendReply> {
    const protocol = specProfile(this.#spec).hotBackup
    // The commands recorded with the hold (one recorded without them is Bedrock's: its profile's).
    const commands = this.#hold?.record.resume ?? (protocol ? holdCommands(protocol).resume : [])
    let last: unknown
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const reply: string[] = []
        for (const command of commands) reply.push(...(await this.#send(command, true)).reply)
        if (commands.every((command) => this.#profile.acknowledged(command, reply))) {
          this.#releaseHold()
          return { sent: true, reply }
        }
        last = new SmError('SM_ERR_SERVER_CONSOLE_UNAVAILABLE', {
          server: this.#spec.name,
          reason: `'${commands.join("', '")}' was not acknowledged (it answered: ${reply.slice(0, 3).join(' | ') || 'nothing'})`,
        })
      } catch (error) {
        last = error
      }
    }
    throw last
  }

  #releaseHold(): void {
    this.#hold = undefined
    this.#files.writeHold(undefined)
    if (this.#holdWatch) clearInterval(this.#holdWatch)
    this.#holdWatch = undefined
  }

  #watchHold(): void {
    this.#holdWatch ??= setInterval(() => this.#checkHold(), HOLD_POLL_MS)
    this.#checkHold()
  }

  /** Resumes a hold nobody stands for any more: its connection closed, or (after an adoption) its holder is gone. */
  #checkHold(): void {
    const hold = this.#hold
    if (!hold || this.#resuming) return
    const { pid, identity } = hold.record.holder
    const holderGone = !isSameProcess(pid, identity)
    if (!hold.orphaned && (hold.connection !== undefined || !holderGone)) return
    const why = hold.orphaned ? 'its holder closed the connection without resuming' : 'its holder is gone'
    this.#resume().then(
      () => this.#log(`resumed the world's saving (held by PID ${pid} since ${hold.record.since}): ${why}`),
      (error) => this.#log(`could not resume a world held by PID ${pid} (${why}), trying again: ${reasonOf(error)}`),
    )
  }

  #status(): RunStatus {
    const status = runStatusOf(this.#state, { supervisorPid: process.pid, adopted: this.#adopted })
    const metrics = this.#sampler?.latest
    return metrics ? { ...status, metrics } : status
  }

  /**
   * Samples the game's resource use into `metrics.jsonl`, and to every follower, while it runs. A
   * sampler that cannot start (its files cannot be read) is said in the log; the game runs on.
   */
  #startSampling(): void {
    const spec = this.#spec.metrics
    if (!spec || this.#finished) return
    try {
      this.#sampler = new Sampler({
        spec,
        dir: this.#spec.cwd,
        series: this.#files.metrics,
        game: () => this.#state.game,
        onSample: (sample) => {
          for (const subscriber of this.#subscribers) subscriber.send({ t: 'sample', sample })
        },
        log: (message) => this.#log(message),
      }).start()
    } catch (error) {
      this.#log(`resource samples are not taken: ${reasonOf(error)}`)
    }
  }

  // ---- the socket ----

  #accept(socket: Socket): void {
    const connection: Conn = new Connection<SupervisorRequest, SupervisorMessage>(
      socket,
      (request) => void this.#answer(connection, request),
      () => {
        this.#subscribers.delete(connection)
        if (this.#hold?.connection === connection) {
          this.#hold.orphaned = true
          this.#checkHold()
        }
        if (this.#owner === connection && this.#run.can('stop')) void this.#stop()
      },
    )
  }

  async #answer(connection: Conn, request: SupervisorRequest): Promise<void> {
    if (request?.t !== 'req') return connection.close('not a request')
    try {
      const value = await this.#perform(connection, request)
      connection.send({ t: 'res', id: request.id, ok: true, value })
    } catch (error) {
      const coded = isSmError(error)
        ? error
        : new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
            server: this.#spec.name,
            reason: reasonOf(error),
            log: this.#files.supervisorLog,
          })
      connection.send({ t: 'res', id: request.id, ok: false, error: coded.toWire() })
    }
  }

  async #perform(connection: Conn, request: SupervisorRequest): Promise<unknown> {
    switch (request.op) {
      case 'status':
        return this.#status()
      case 'send':
        return this.#send(
          String(request.command ?? ''),
          request.collect === true,
          Math.min(Math.max(Number(request.replyMaxMs) || REPLY_MAX_MS, 0), REPLY_LONGEST_MS),
          typeof request.until === 'string' ? request.until : undefined,
        )
      case 'stop':
        if (!LIVE.includes(this.#run.phase)) throw this.#notRunning('stop')
        return this.#stop()
      case 'kill':
        if (!LIVE.includes(this.#run.phase)) throw this.#notRunning('be killed')
        return this.#kill()
      case 'subscribe': {
        this.#subscribers.add(connection)
        if (request.tail === 'run') return { ...this.#status(), tail: [...this.#ring] }
        const tail = Math.max(0, Math.min(Number(request.tail ?? 0) || 0, 10_000))
        const lines =
          tail <= this.#ring.length
            ? this.#ring.slice(this.#ring.length - tail)
            : lastConsoleLines(this.#files.log, tail)
        return { ...this.#status(), tail: tail ? lines : [] }
      }
      case 'hold':
        return this.#holdWorld(connection, { pid: Number(request.holder?.pid), identity: request.holder?.identity })
      case 'resume':
        return this.#resume()
      case 'own':
        this.#owner = connection
        return this.#status()
      default:
        throw new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
          server: this.#spec.name,
          reason: `unknown request '${String((request as { op: unknown }).op)}'`,
          log: this.#files.supervisorLog,
        })
    }
  }

  #notRunning(action: string): SmError {
    return new SmError('SM_ERR_SERVER_NOT_RUNNING', { server: this.#spec.name, status: this.#state.status, action })
  }

  // ---- the console log ----

  /** Copy-and-truncate rotation (the game holds the log open O_APPEND, so renaming it would lose lines). */
  #rotateLog(): void {
    const { maxBytes, keep } = this.#spec.log
    const log = this.#files.log
    if (this.#files.logSize() <= maxBytes) return
    this.#tail?.poll()
    for (let n = keep - 1; n >= 1; n--) if (existsSync(`${log}.${n}`)) renameSync(`${log}.${n}`, `${log}.${n + 1}`)
    if (keep >= 1)
      try {
        copyFileSync(log, `${log}.1`)
      } catch (error) {
        // A torn copy is no rotated log; the log itself is still whole (not truncated).
        rmSync(`${log}.1`, { force: true })
        throw error
      }
    truncateSync(log, 0)
  }

  /** Rotates the log if it is due, or says why not: the next check tries again. */
  #rotateLogLater(): void {
    try {
      this.#rotateLog()
    } catch (error) {
      this.#log(`the console log could not be rotated (tried again later): ${reasonOf(error)}`)
    }
  }

  /** Ends the supervisor: the game has stopped for good (or never started). */
  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    this.#state = { ...this.#state, supervisor: undefined }
    this.#stateUnwritten = true
    if (this.#logCheck) clearInterval(this.#logCheck)
    if (this.#holdWatch) clearInterval(this.#holdWatch)
    this.#sampler?.stop()
    this.#tail?.stop()
    // Ends once its last state is on disk: until then it serves its status from memory (a full
    // disk), since the files would say a supervisor still watches a game that is gone.
    this.#persist()
  }

  #close(): void {
    if (this.#closing) return
    this.#closing = true
    // Replies already queued go out; then the socket and its file go.
    setImmediate(() => {
      this.#server?.close()
      rmSync(this.#files.socket, { force: true })
      for (const subscriber of this.#subscribers) subscriber.close()
      this.#options.onEnd()
    })
  }

  /** A line in the run's `supervisor.log`. */
  #log(message: string): void {
    try {
      appendFileSync(this.#files.supervisorLog, `${new Date().toISOString()} ${message}\n`, { mode: 0o600 })
    } catch {
      // supervisor.log cannot be written (a full disk): the line is lost, the supervisor carries on.
    }
  }
}

function restartReason(restarts: number, maxRestarts: number): string {
  return `restart ${restarts} of ${maxRestarts} after a crash`
}

function describeExit(code: number | null, signal: string | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`
}

function isStopCommand(command: string, stopCommand: string): boolean {
  const norm = (s: string) => s.trim().replace(/^\//, '').toLowerCase()
  return norm(command) === norm(stopCommand)
}
