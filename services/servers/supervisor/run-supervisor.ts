/**
 * A server's supervisor: one per running game server, inside the host agent (agent.ts), the one
 * process that supervises every game of the data directory. It starts the game with its console
 * input on a FIFO (opened read-write, so the game never sees EOF) and its output appended to
 * `console.log`, so the game outlives the agent and everything else; it serves the run's 0600
 * UNIX socket (status, send, follow, stop, kill), tracks the status, restarts the game after a
 * crash per the policy, and ends when the game has stopped for good.
 *
 * The class composes its parts, each with one job (as Wings splits its `Server`): the run's record
 * (run-record.ts), its game process from launch to end (run-lifecycle.ts), the console and its
 * replies (game-console.ts), the world held for a hot backup (world-hold.ts), the console log's
 * rotation (log-rotation.ts), resource sampling (sampler.ts) and the socket (supervisor-socket.ts).
 */
import { reasonOf, SmError } from '../../../kernel/errors'
import { gameAlive } from '../../../lib/process-group'
import { ownProcess } from '../../../lib/process-identity'
import { type Conn, GameConsole, REPLY_MAX_MS } from './game-console'
import { LogRotation } from './log-rotation'
import { consoleProfile, specProfile } from './profiles'
import type { Announcement, RunStatus, SupervisorRequest } from './protocol'
import { type RunFiles, type RunSpec, runStatusOf, type ServerStatus } from './run-files'
import { RunLifecycle } from './run-lifecycle'
import { LIVE } from './run-machine'
import { RunRecord } from './run-record'
import { Sampler } from './sampler'
import { SupervisorSocket } from './supervisor-socket'
import { WorldHold } from './world-hold'

/** The longest a request may ask a reply to take (`replyMaxMs`: a hot backup's flush). */
const REPLY_LONGEST_MS = 600_000

/** What a supervisor is given besides its run: its starter's environment, and whom to tell when it has ended. */
export interface SupervisorOptions {
  /** The starter's values of PASSED_ENV (protocol.ts); then the profile's and the server's own apply. */
  readonly env: Readonly<Record<string, string>>
  /** Called once its run has ended and its socket is gone. */
  readonly onEnd: () => void
}

export class Supervisor {
  readonly #files: RunFiles
  readonly #spec: RunSpec
  readonly #options: SupervisorOptions
  readonly #record: RunRecord
  readonly #console: GameConsole
  readonly #hold: WorldHold
  readonly #rotation: LogRotation
  readonly #life: RunLifecycle
  readonly #socket: SupervisorSocket
  #owner: Conn | undefined
  #closing = false
  /** Samples the game's resource use, when the spec asks for it. */
  #sampler: Sampler | undefined

  constructor(files: RunFiles, spec: RunSpec, options: SupervisorOptions) {
    this.#files = files
    this.#spec = spec
    this.#options = options
    const profile = consoleProfile(specProfile(spec))
    this.#record = new RunRecord(files, spec, {
      onStatus: (entry) => this.#console.broadcast({ t: 'status', entry }),
      onFinish: () => this.#finish(),
      onWritten: () => this.#close(),
    })
    this.#console = new GameConsole(files, spec, profile, this.#record, () => void this.#life.stop())
    this.#hold = new WorldHold(files, spec, profile, this.#console, this.#record)
    this.#rotation = new LogRotation(
      files,
      spec.log,
      () => this.#console.poll(),
      (message) => this.#record.log(message),
    )
    this.#life = new RunLifecycle({
      files,
      spec,
      profile,
      env: options.env,
      record: this.#record,
      console: this.#console,
      hold: this.#hold,
      rotation: this.#rotation,
    })
    this.#socket = new SupervisorSocket(files, spec.name, {
      perform: (connection, request) => this.#perform(connection, request),
      closed: (connection) => this.#closed(connection),
    })
  }

  /** The status its run shows now. */
  get status(): ServerStatus {
    return this.#record.state.status
  }

  /**
   * Binds the socket, then adopts the recorded game if it still runs, else starts it. Only to
   * `adopt`, a game that has ended (between the caller's look and now) is refused, and nothing
   * starts: the caller's look records its end and applies the restart policy to it, once.
   */
  async run(purpose: 'run' | 'adopt' = 'run'): Promise<Announcement> {
    await this.#socket.listen()
    const recorded = this.#record.state.game
    if (purpose === 'adopt' && !(recorded && gameAlive(recorded.pid, recorded.identity))) {
      this.#socket.close()
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', {
        server: this.#spec.name,
        status: 'no longer running',
        action: 'be adopted',
      })
    }
    this.#record.update({ supervisor: ownProcess() })
    const game = this.#record.state.game
    const hold = this.#files.readHold()
    if (game && gameAlive(game.pid, game.identity)) {
      this.#life.adopt(game.startedAt)
      // A hold the supervisor before us took: kept while its holder lives, resumed at once if it is gone.
      if (hold) this.#hold.takeOver(hold)
    } else {
      this.#files.writeHold(undefined) // a new game process holds nothing
      this.#life.launchFirst()
    }
    this.#record.persist()
    // A launch that failed at once has finished the run (and stopped rotation) already.
    if (!this.#record.finished) this.#rotation.start()
    this.#startSampling()
    return { ok: true, adopted: this.#life.adopted, status: this.#record.state.status }
  }

  #status(): RunStatus {
    const status = runStatusOf(this.#record.state, { supervisorPid: process.pid, adopted: this.#life.adopted })
    const metrics = this.#sampler?.latest
    return metrics ? { ...status, metrics } : status
  }

  /**
   * Samples the game's resource use into `metrics.jsonl`, and to every follower, while it runs. A
   * sampler that cannot start (its files cannot be read) is said in the log; the game runs on.
   */
  #startSampling(): void {
    const spec = this.#spec.metrics
    if (!spec || this.#record.finished) return
    try {
      this.#sampler = new Sampler({
        spec,
        dir: this.#spec.cwd,
        series: this.#files.metrics,
        game: () => this.#record.state.game,
        onSample: (sample) => this.#console.broadcast({ t: 'sample', sample }),
        log: (message) => this.#record.log(message),
      }).start()
    } catch (error) {
      this.#record.log(`resource samples are not taken: ${reasonOf(error)}`)
    }
  }

  /** A connection closed: it follows nothing, a hold it stood for is resumed, a direct run it owned is stopped. */
  #closed(connection: Conn): void {
    this.#console.unsubscribe(connection)
    this.#hold.connectionClosed(connection)
    if (this.#owner === connection && this.#record.can('stop')) void this.#life.stop()
  }

  async #perform(connection: Conn, request: SupervisorRequest): Promise<unknown> {
    switch (request.op) {
      case 'status':
        return this.#status()
      case 'send':
        return this.#console.send(
          String(request.command ?? ''),
          request.collect === true,
          Math.min(Math.max(Number(request.replyMaxMs) || REPLY_MAX_MS, 0), REPLY_LONGEST_MS),
          typeof request.until === 'string' ? request.until : undefined,
        )
      case 'stop':
        if (!LIVE.includes(this.#record.phase)) throw this.#notRunning('stop')
        return this.#life.stop()
      case 'kill':
        if (!LIVE.includes(this.#record.phase)) throw this.#notRunning('be killed')
        return this.#life.kill()
      case 'subscribe':
        this.#console.subscribe(connection)
        return { ...this.#status(), tail: this.#console.lastLines(request.tail) }
      case 'hold':
        return this.#hold.hold(connection, { pid: Number(request.holder?.pid), identity: request.holder?.identity })
      case 'resume':
        return this.#hold.resume()
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
    return new SmError('SM_ERR_SERVER_NOT_RUNNING', {
      server: this.#spec.name,
      status: this.#record.state.status,
      action,
    })
  }

  /** The run has ended for good: what ran beside it stops (its last state is written next). */
  #finish(): void {
    this.#rotation.stop()
    this.#hold.stopWatching()
    this.#sampler?.stop()
    this.#console.stopFollowing()
  }

  /** Its last state is on disk: the socket goes once the replies already queued have gone out. */
  #close(): void {
    if (this.#closing) return
    this.#closing = true
    setImmediate(() => {
      this.#socket.close()
      this.#console.closeFollowers()
      this.#options.onEnd()
    })
  }
}
