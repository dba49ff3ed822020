import { existsSync, statSync } from 'node:fs'
import { type BusScope, isDiskFull, type Logger, performAction, reasonOf, SmError } from '../../kernel'
import { lastConsoleLines } from '../../lib/log-tail'
import { isSameProcess, ownProcess } from '../../lib/process-identity'
import type { Projections } from '../events/contract'
import type { HoldConsole } from './backups/hot-backup'
import { ACTIVE, type ServerRecord, type StartReply } from './contract'
import { commandProblem, powerRefusal, settled } from './control-checks'
import { checkStartable } from './eula'
import { withHold } from './hold-console'
import { type FollowListener, LiveFollow, runUnderWay } from './live-follow'
import { powerLockHeld, withPowerLock } from './power-lock'
import { type GameProfile, gameProfile, refusalIn } from './profiles'
import { RunMoves } from './run-moves'
import { type Get, restartPolicy, runSpecOf } from './run-spec'
import { awaitUp } from './start-wait'
import { endedUnseen, type Recovery, StatusIngest } from './status-ingest'
import { SupervisorClient, spawnSupervisor } from './supervisor/client'
import { specProfile } from './supervisor/profiles'
import type { ExitReply, RunStatus, SendReply } from './supervisor/protocol'
import { RunFiles, type RunState, type StartMode } from './supervisor/run-files'
import { filesView, gameRunning, recordEnd, unrecordedEnd } from './unseen-end'

/**
 * Process control of the game servers, from any process of the data directory: the manager, or
 * a CLI that runs without one. The supervisors own the processes; this side starts them, asks
 * them and adopts games whose supervisor died. What their files say happened becomes facts
 * through the status ingest, the one owner of that (status-ingest.ts); in the manager, the live
 * follow (live-follow.ts) watches every running server.
 */
export class ServerControl {
  readonly #bus: BusScope
  readonly #dataDir: string
  readonly #setting: Get
  readonly #logger: Logger
  readonly #ingest: StatusIngest
  readonly #follow: LiveFollow
  /** When a server's run may have changed, for the servers list (run-moves.ts). */
  readonly moves: RunMoves

  /** `listener`: what the manager's live follow tells (a resource sample, a follow resumed). */
  constructor(
    bus: BusScope,
    projections: Projections,
    dataDir: string,
    setting: Get,
    logger: Logger,
    listener: FollowListener = {},
  ) {
    this.#bus = bus
    this.#dataDir = dataDir
    this.#setting = setting
    this.#logger = logger
    const files = (name: string) => this.files(name)
    const recovery: Recovery = {
      finishInterrupted: (server) => this.#finishInterrupted(server),
      adoptHeld: (server) => this.#adoptHeld(server),
      restartPolicy: (server) => restartPolicy(server, setting),
      relaunch: (server, crashed) => this.#relaunch(server, crashed),
    }
    this.#ingest = new StatusIngest(bus, projections, logger, files, recovery)
    this.#follow = new LiveFollow(
      bus,
      logger,
      files,
      {
        status: (server) => this.status(server),
        adopt: (server) => this.#supervisor(server, 'be adopted'),
        moved: (name) => this.moves.moved(name),
      },
      this.#ingest,
      listener,
    )
    this.moves = new RunMoves(dataDir, this.#follow, logger)
  }

  files(name: string): RunFiles {
    return RunFiles.of(this.#dataDir, name)
  }

  /**
   * The server's status now: its supervisor's word, else what its state file and /proc say. Only
   * a read: the status ingest first catches up with the server (what happened while nobody
   * watched is recorded and dealt with), and this waits for it unless asked from inside it.
   */
  async status(server: ServerRecord): Promise<RunStatus> {
    // Never started on this machine: no run directory, so no supervisor, state or journal to ask.
    if (!this.files(server.name).exists()) return filesView(undefined)
    await this.#ingest.catchUp(server, 'look')
    return this.#read(server)
  }

  /** Runs a power action under the server's power lock (power-lock.ts). */
  #locked<T>(files: RunFiles, name: string, action: string, fn: () => Promise<T>): Promise<T> {
    return this.moves.acting(name, () => withPowerLock(files.powerLock, name, action, fn))
  }

  /** Records, for every server, what its journal holds and the log does not (before a read of the log). */
  recordPending(servers: readonly ServerRecord[]): Promise<void> {
    return this.#ingest.recordPending(servers)
  }

  /** The supervisor's word, else what the files say: a run that ended unseen and is not recorded yet reads as ended. */
  async #read(server: ServerRecord): Promise<RunStatus> {
    const files = this.files(server.name)
    const told = await this.#ask(server, files)
    if (told) return told
    const state = files.readState()
    // Not recorded yet (a full disk; or it ended a moment ago); a power action in flight owns the files.
    if (!endedUnseen(state) || powerLockHeld(files.powerLock)) return filesView(state)
    return unrecordedEnd(state as RunState)
  }

  /**
   * A look by a power action, which holds the server's power lock: a run whose game is gone with
   * nobody watching is recorded ended here (no restart: the action decides what comes next).
   */
  async #actingLook(server: ServerRecord): Promise<RunStatus> {
    const files = this.files(server.name)
    const told = await this.#ask(server, files)
    if (told) return told
    const state = files.readState()
    if (!state || gameRunning(state.game) || !ACTIVE.includes(state.status)) return filesView(state)
    return recordEnd(files, state, undefined, server.name, this.#logger).status
  }

  /** The supervisor's word, when one answers. */
  async #ask(server: ServerRecord, files: RunFiles): Promise<RunStatus | undefined> {
    const client = await SupervisorClient.connect(files, server.name)
    if (!client) return undefined
    try {
      return await client.status()
    } catch {
      return undefined // it ended between connect and answer: the files say the rest
    } finally {
      client.close()
    }
  }

  /** A save hold whose supervisor died: a new one adopts the game and resumes it if its holder is gone too. */
  async #adoptHeld(server: ServerRecord): Promise<void> {
    const files = this.files(server.name)
    if (!files.readHold() || !gameRunning(files.readState()?.game)) return
    const client = await SupervisorClient.connect(files, server.name)
    if (client) return client.close()
    const adopted = await this.#supervisor(server, 'be adopted')
    adopted.close()
  }

  /**
   * Starts a new supervisor for the restart of a crash found after the fact: its spec carries the
   * streak, so the restart counts toward `restart.max_restarts` as the supervisor's own do. It
   * answers once the game is launched (not once it is ready: a look does not wait for a start).
   */
  async #relaunch(server: ServerRecord, crashed: RunState): Promise<void> {
    const files = this.files(server.name)
    files.writeSpec({
      ...(await runSpecOf(server, crashed.mode, this.#setting, this.#bus)),
      crashRestart: crashed.restarts,
    })
    const announced = await this.#spawn(files, server.name)
    // Served: the restart, or (SUPERVISED) a supervisor that a command started meanwhile, which says what it found.
    if (announced.ok || announced.error.code === 'SM_ERR_SERVER_SUPERVISED') {
      void this.#follow.watch(server)
      return
    }
    const reason = `its restart after the crash failed: ${SmError.fromWire(announced.error).message}`
    this.#logger.error(`Server '${server.name}': ${reason}`)
    try {
      files.changeStatus(crashed, 'error', { reason })
    } catch (error) {
      if (!isDiskFull(error)) throw error
    }
  }

  /** Asks the status ingest to record the journal after a power action (waited for, unless from inside it). */
  #recordAfter(server: ServerRecord): Promise<void> {
    return this.#ingest.catchUp(server, 'journal')
  }

  // ---- power ----

  async start(server: ServerRecord, mode: StartMode): Promise<StartReply> {
    if (mode !== 'detached' && mode !== 'direct')
      throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', {
        server: server.name,
        reason: `'${String(mode)}' is not a start mode (detached or direct)`,
      })
    const files = this.files(server.name)
    files.ensureDir()
    return this.#locked(files, server.name, 'start', () => this.#start(server, mode))
  }

  /**
   * Why a start (of what runs) or a stop (of what does not) of the server makes no sense now, as
   * a coded error, or undefined: a look, answered before any work begins (the action itself looks
   * again under the power lock).
   */
  async refusal(server: ServerRecord, action: 'start' | 'stop'): Promise<SmError | undefined> {
    return powerRefusal(server.name, await this.status(server), action)
  }

  async #start(server: ServerRecord, mode: StartMode): Promise<StartReply> {
    const refused = powerRefusal(server.name, await this.#actingLook(server), 'start')
    if (refused) throw refused
    if (!existsSync(server.dir) || !statSync(server.dir).isDirectory())
      throw new SmError('SM_ERR_SERVER_DIR_UNUSABLE', { dir: server.dir, reason: 'it no longer exists' })
    await checkStartable(server)
    const outcome = await performAction(this.#bus, {
      before: 'before_server_start',
      after: 'after_server_start',
      payload: { serverName: server.name, mode },
      perform: () => this.#launch(server, mode),
      message: (reply) => `Server '${server.name}' is ${reply.status} (PID ${reply.pid}).`,
    })
    return settled(outcome, server.name, 'The start of')
  }

  async #launch(server: ServerRecord, mode: StartMode): Promise<StartReply> {
    const files = this.files(server.name)
    files.writeSpec(await runSpecOf(server, mode, this.#setting, this.#bus))
    // A watch of the run before (its supervisor is gone, the socket may not have said so yet) would keep out the new one.
    this.#follow.unwatch(server.name)
    const announced = await this.#spawn(files, server.name)
    if (!announced.ok) throw SmError.fromWire(announced.error)
    // Followed from its first line: the boot lines reach the console's followers (the web page) as they come.
    void this.#follow.watch(server)
    const timeoutS = Number(await this.#setting('servers.start_timeout_s'))
    return awaitUp(server, files, timeoutS, () => this.#recordAfter(server))
  }

  /** Starts a supervisor, whose first watch then reads its lines from the start. */
  #spawn(files: RunFiles, name: string, purpose: 'run' | 'adopt' = 'run'): ReturnType<typeof spawnSupervisor> {
    return this.moves.acting(name, async () => {
      this.#follow.spawning(name)
      const announced = await spawnSupervisor(files, name, purpose)
      if (!announced.ok && announced.error.code !== 'SM_ERR_SERVER_SUPERVISED') this.#follow.notSpawned(name)
      return announced
    })
  }

  async stop(server: ServerRecord, reason: 'stop' | 'schedule' | 'manager' = 'stop'): Promise<ExitReply> {
    const files = this.files(server.name)
    files.ensureDir()
    return this.#locked(files, server.name, 'stop', () => this.#stop(server, reason))
  }

  async #stop(server: ServerRecord, reason: 'stop' | 'restart' | 'schedule' | 'manager'): Promise<ExitReply> {
    const refused = powerRefusal(server.name, await this.#actingLook(server), 'stop')
    if (refused) throw refused
    // Said while the hooks run (a warning to the players may take seconds), and when they are over.
    await this.#bus.emit('servers:stopping', { serverName: server.name, over: false })
    const outcome = await performAction(this.#bus, {
      before: 'before_server_stop',
      after: 'after_server_stop',
      payload: { serverName: server.name, reason },
      perform: async () => {
        const client = await this.#supervisor(server, 'be stopped', true)
        try {
          return (await client.request('stop', {})) as ExitReply
        } finally {
          client.close()
          await this.#recordAfter(server)
        }
      },
      message: (exit) =>
        `Server '${server.name}' stopped${exit.escalated ? ` (it did not stop on '${server.stopCommand}', so it got ${exit.escalated})` : ''}.`,
    }).finally(() =>
      // Only says so: a live event that cannot be delivered never turns a stop that was done into a failure.
      this.#bus
        .emit('servers:stopping', { serverName: server.name, over: true })
        .catch((error: unknown) => this.#logger.debug(`servers:stopping was not delivered: ${reasonOf(error)}`)),
    )
    return settled(outcome, server.name, 'The stop of')
  }

  async restart(server: ServerRecord, reason: 'restart' | 'schedule' = 'restart'): Promise<StartReply> {
    const files = this.files(server.name)
    files.ensureDir()
    return this.#locked(files, server.name, 'restart', async () => {
      const now = await this.#actingLook(server)
      if (runUnderWay(now)) await this.#stop(server, reason)
      return this.#start(server, now.mode ?? 'detached')
    })
  }

  /**
   * Stops a running server, runs `fn` (`work` names it: `a restore`), and starts it again
   * whatever `fn` did. When `fn` succeeded but the start fails, that failure is the caller's: its
   * work is done, the server is down. The intent to start it again is recorded first
   * (`intent.json`), so that if this process dies on the way, the next look at the server
   * (a command, or the manager starting) starts it.
   */
  async stopped<T>(server: ServerRecord, work: string, fn: () => Promise<T>): Promise<T> {
    const files = this.files(server.name)
    files.ensureDir()
    files.writeIntent({
      work,
      holder: ownProcess(),
      since: new Date().toISOString(),
    })
    try {
      await this.stop(server)
      let value: T
      try {
        value = await fn()
      } catch (error) {
        await this.start(server, 'detached').catch((startError) =>
          this.#logger.error(`Server '${server.name}' did not start again: ${reasonOf(startError)}`),
        )
        throw error
      }
      await this.start(server, 'detached')
      return value
    } finally {
      if (files.readIntent()?.holder.pid === process.pid) files.writeIntent(undefined)
    }
  }

  /**
   * Finishes what a process that died left undone: a server it stopped for some work and meant to
   * start again is started (under the power lock; a live power action elsewhere goes first, and
   * the next look finishes it). The record is taken over before the start, so a death now leaves
   * it for the next look again.
   */
  async #finishInterrupted(server: ServerRecord): Promise<void> {
    const files = this.files(server.name)
    const intent = files.readIntent()
    if (!intent || isSameProcess(intent.holder.pid, intent.holder.identity)) return
    try {
      await this.#locked(files, server.name, 'start', async () => {
        const left = files.readIntent()
        if (!left || isSameProcess(left.holder.pid, left.holder.identity)) return
        files.writeIntent({ ...left, holder: ownProcess() })
        const now = await this.#actingLook(server)
        if (!runUnderWay(now)) {
          this.#logger.warn(
            `Server '${server.name}' was left stopped by ${left.work} that did not finish (PID ${left.holder.pid}, since ${left.since}); starting it again.`,
          )
          try {
            await this.#start(server, 'detached')
          } catch (error) {
            this.#logger.error(
              `Server '${server.name}' did not start again after ${left.work} that did not finish: ${reasonOf(error)}. Start it with 'server-manager server start ${server.name}'.`,
            )
          }
        }
        files.writeIntent(undefined)
      })
    } catch (error) {
      // Another process's start, stop or restart is under way: the next look finishes it.
      if (!(error instanceof SmError && error.code === 'SM_ERR_SERVER_BUSY')) throw error
    }
  }

  /** SIGKILL at once, bypassing any power action in progress (its identity is checked first). */
  kill(server: ServerRecord): Promise<ExitReply> {
    return this.moves.acting(server.name, () => this.#kill(server))
  }

  async #kill(server: ServerRecord): Promise<ExitReply> {
    const files = this.files(server.name)
    const client = await SupervisorClient.connect(files, server.name)
    if (client) {
      try {
        return (await client.request('kill', {})) as ExitReply
      } finally {
        client.close()
        await this.#recordAfter(server)
      }
    }
    const state = files.readState()
    const game = state?.game
    if (!state || !game || !gameRunning(game))
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', {
        server: server.name,
        status: (await this.status(server)).status,
        action: 'be killed',
      })
    try {
      process.kill(-game.pid, 'SIGKILL')
    } catch {
      process.kill(game.pid, 'SIGKILL')
    }
    try {
      files.changeStatus(
        state,
        'stopped',
        { reason: 'killed: SIGKILL', exitCode: null, signal: 'SIGKILL' },
        { game: undefined, supervisor: undefined, exitCode: null, signal: 'SIGKILL' },
      )
    } catch (error) {
      // Killed is killed: the next look finds the game gone and records that (as a crash).
      if (!isDiskFull(error)) throw error
      this.#logger.warn(`the kill of '${server.name}' is not recorded while the disk is full: ${reasonOf(error)}`)
    }
    await this.#recordAfter(server)
    return { exitCode: null, signal: 'SIGKILL', escalated: undefined }
  }

  async send(server: ServerRecord, command: string): Promise<SendReply> {
    const problem = commandProblem(command)
    if (problem) throw new SmError('SM_ERR_SERVER_COMMAND_INVALID', { server: server.name, reason: problem })
    const now = await this.status(server)
    if (!ACTIVE.includes(now.status))
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', {
        server: server.name,
        status: now.status,
        action: 'take commands',
      })
    const outcome = await performAction(this.#bus, {
      before: 'before_command_send',
      after: 'after_command_send',
      payload: { serverName: server.name, command },
      perform: async () => {
        const client = await this.#supervisor(server, 'take commands')
        let sent: SendReply
        try {
          sent = (await client.request('send', { command, collect: true })) as SendReply
        } finally {
          client.close()
        }
        // Sent, and refused by the game: an error for the caller and in the fact, never sent again.
        const line = refusalIn(gameProfile(server), sent.reply, command)
        if (line !== undefined)
          throw new SmError('SM_ERR_SERVER_COMMAND_REFUSED', { server: server.name, command, line, reply: sent.reply })
        return sent
      },
    })
    const reply = settled(outcome, server.name, 'A console command to')
    if (reply.warning) this.#logger.warn(reply.warning)
    return reply
  }

  /** The console as a hot backup needs it, by the profile the game runs with (hold-console.ts). */
  withHold<T>(server: ServerRecord, fn: (game: HoldConsole) => Promise<T>): Promise<T> {
    return withHold(() => this.#supervisor(server, 'take commands'), this.runningProfile(server), fn)
  }

  /**
   * The profile a running game was started with (its spec): a `server edit` reaches it at its next
   * start, and until then its supervisor holds, flushes and resumes the world by this one, so a hot
   * backup of it must too. The record's own when no run was ever started.
   */
  runningProfile(server: ServerRecord): GameProfile {
    const spec = this.files(server.name).readSpec()
    return spec ? specProfile(spec) : gameProfile(server)
  }

  /**
   * Asks a running game something that changes nothing (who is online), straight to its console:
   * not a command_send action, so a read records no fact and no hook can stop it. The reply lines
   * as the profile knows them; `action` says what could not be done when it is not running.
   */
  async ask(server: ServerRecord, command: string, action: string): Promise<readonly string[]> {
    const now = await this.status(server)
    if (now.status !== 'running')
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', { server: server.name, status: now.status, action })
    const client = await this.#supervisor(server, action)
    try {
      return ((await client.request('send', { command, collect: true })) as SendReply).reply
    } finally {
      client.close()
    }
  }

  /** The last `count` lines of the server's console log, as plain text (`file` keeps the raw bytes). */
  logs(server: ServerRecord, count: number): { file: string; lines: string[] } {
    const file = this.files(server.name).log
    return { file, lines: lastConsoleLines(file, Math.min(count, 100_000)) }
  }

  /**
   * A connection to the server's supervisor, adopting a game that outlived its supervisor. A game
   * that ends as it is being adopted is not started again by the adopting supervisor: the look
   * after records its end, and applies the restart policy to it (not when `acting`: a power action
   * holding the lock, which decides what comes next); a supervisor of its restart then serves.
   */
  async #supervisor(server: ServerRecord, action: string, acting = false): Promise<SupervisorClient> {
    const files = this.files(server.name)
    const client = await SupervisorClient.connect(files, server.name)
    if (client) return client
    const game = files.readState()?.game
    if (!game || !gameRunning(game))
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', { server: server.name, status: 'stopped', action })
    const announced = await this.#spawn(files, server.name, 'adopt')
    if (!announced.ok && announced.error.code === 'SM_ERR_SERVER_NOT_RUNNING') {
      const now = acting ? await this.#actingLook(server) : await this.status(server)
      const relaunched = acting ? undefined : await SupervisorClient.connect(files, server.name)
      if (relaunched) return relaunched
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', { server: server.name, status: now.status, action })
    }
    if (!announced.ok && announced.error.code !== 'SM_ERR_SERVER_SUPERVISED') throw SmError.fromWire(announced.error)
    this.#logger.info(
      `Server '${server.name}': its game (PID ${game.pid}) outlived its supervisor; a new one adopted it.`,
    )
    const adopted = await SupervisorClient.connect(files, server.name)
    if (!adopted)
      throw new SmError('SM_ERR_SERVER_SUPERVISOR_FAILED', {
        server: server.name,
        reason: 'it did not answer after adopting the game',
        log: files.supervisorLog,
      })
    void this.#follow.watch(server)
    return adopted
  }

  // ---- the manager's live view ----

  /**
   * In the manager: adopts every server whose game runs without a supervisor, records what
   * happened while no manager ran, and follows each running server from now on (live-follow.ts).
   */
  async reconcile(servers: readonly ServerRecord[]): Promise<void> {
    // Watched first: a change of the run files while the follow looks is told. Not at all once
    // the manager has begun stopping (it stopped before its start got here).
    if (!this.moves.start()) return
    await this.#follow.reconcile(servers)
  }

  /** Stops following (the manager is stopping); the servers and their supervisors run on. */
  stopFollowing(): void {
    this.#follow.close()
    this.moves.close()
  }

  /** Stops following, and waits for the catch-ups under way (the service is stopping). */
  async close(): Promise<void> {
    this.stopFollowing()
    await this.#ingest.close()
  }
}
