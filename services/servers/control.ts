import { existsSync, statSync } from 'node:fs'
import {
  type ActionOutcome,
  type BusScope,
  isDiskFull,
  type Logger,
  performAction,
  reasonOf,
  SmError,
} from '../../kernel'
import { lastConsoleLines } from '../../lib/log-tail'
import { isSameProcess, ownProcess } from '../../lib/process-identity'
import type { Projections } from '../events/contract'
import type { HoldConsole } from './backups/hot-backup'
import type { ServerRecord, StartReply } from './contract'
import { checkStartable } from './eula'
import { type FollowListener, LiveFollow, runUnderWay } from './live-follow'
import { powerLockHeld, withPowerLock } from './power-lock'
import { consoleMessage, type GameProfile, gameProfile, matches, refusalIn } from './profiles'
import { serverSetting } from './server-settings'
import { endedUnseen, type Recovery, StatusIngest } from './status-ingest'
import { SupervisorClient, spawnSupervisor } from './supervisor/client'
import { MAX_COMMAND_BYTES } from './supervisor/limits'
import { consoleProfile, specProfile } from './supervisor/profiles'
import type { ExitReply, RunStatus, SendReply } from './supervisor/protocol'
import { ACTIVE, RunFiles, type RunSpec, type RunState, type StartMode } from './supervisor/run-files'
import { filesView, gameRunning, recordEnd, unrecordedEnd } from './unseen-end'

type Get = (key: string) => Promise<unknown>

/** How often a hot backup's console request is made when its supervisor's connection is lost. */
const LOST_CONNECTION_ATTEMPTS = 3

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
      restartPolicy: (server) => this.#restartPolicy(server),
      relaunch: (server, crashed) => this.#relaunch(server, crashed),
    }
    this.#ingest = new StatusIngest(bus, projections, logger, files, recovery)
    this.#follow = new LiveFollow(
      bus,
      logger,
      files,
      { status: (server) => this.status(server), adopt: (server) => this.#supervisor(server, 'be adopted') },
      this.#ingest,
      listener,
    )
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
    await this.#ingest.catchUp(server, 'look')
    return this.#read(server)
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

  /** The server's restart policy in effect: its own settings, else the global ones. */
  async #restartPolicy(server: ServerRecord): Promise<RunSpec['restart']> {
    const own = (key: string) => serverSetting(server, key, this.#setting)
    return {
      enabled: (await own('restart.enabled')) === true,
      maxRestarts: Number(await own('restart.max_restarts')),
      minUptimeMs: Number(await own('restart.min_uptime_s')) * 1000,
      delayMs: Number(await this.#setting('servers.restart.delay_ms')),
    }
  }

  /**
   * Starts a new supervisor for the restart of a crash found after the fact: its spec carries the
   * streak, so the restart counts toward `restart.max_restarts` as the supervisor's own do. It
   * answers once the game is launched (not once it is ready: a look does not wait for a start).
   */
  async #relaunch(server: ServerRecord, crashed: RunState): Promise<void> {
    const files = this.files(server.name)
    files.writeSpec({ ...(await this.#runSpec(server, crashed.mode)), crashRestart: crashed.restarts })
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
    return withPowerLock(files.powerLock, server.name, 'start', () => this.#start(server, mode))
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
    files.writeSpec(await this.#runSpec(server, mode))
    // A watch of the run before (its supervisor is gone, the socket may not have said so yet) would keep out the new one.
    this.#follow.unwatch(server.name)
    const announced = await this.#spawn(files, server.name)
    if (!announced.ok) throw SmError.fromWire(announced.error)
    // Followed from its first line: the boot lines reach the console's followers (the web page) as they come.
    void this.#follow.watch(server)
    const timeoutS = Number(await this.#setting('servers.start_timeout_s'))
    return this.#awaitUp(server, files, timeoutS)
  }

  /** Starts a supervisor, whose first watch then reads its lines from the start. */
  async #spawn(files: RunFiles, name: string, purpose: 'run' | 'adopt' = 'run'): ReturnType<typeof spawnSupervisor> {
    this.#follow.spawning(name)
    const announced = await spawnSupervisor(files, name, purpose)
    if (!announced.ok && announced.error.code !== 'SM_ERR_SERVER_SUPERVISED') this.#follow.notSpawned(name)
    return announced
  }

  /** Waits for the new run to be up, or to fail: the first status past `starting` decides. */
  async #awaitUp(server: ServerRecord, files: RunFiles, timeoutS: number): Promise<StartReply> {
    const client = await SupervisorClient.connect(files, server.name)
    const failed = (reason: string) => {
      const log = lastConsoleLines(files.log, 5)
      return new SmError('SM_ERR_SERVER_START_FAILED', {
        server: server.name,
        reason,
        log: log.length ? ` Its last console lines:\n  ${log.join('\n  ')}\n` : '',
      })
    }
    const verdict = (status: string, reason: string | undefined): StartReply | SmError | undefined => {
      if (status === 'running')
        return { status: 'running', pid: files.readState()?.game?.pid, mode: files.readState()?.mode ?? 'detached' }
      if (status === 'starting') return undefined
      return failed(reason ?? status)
    }
    if (!client) {
      const state = files.readState()
      const v = verdict(state?.status ?? 'stopped', state?.reason)
      if (v instanceof SmError) throw v
      if (v) return v
      throw failed('its supervisor ended before it could be asked')
    }
    try {
      return await new Promise<StartReply>((resolvePromise, reject) => {
        const decide = (status: string, reason: string | undefined) => {
          const v = verdict(status, reason)
          if (v instanceof SmError) reject(v)
          else if (v) resolvePromise(v)
        }
        const timer = setTimeout(
          () => reject(new SmError('SM_ERR_SERVER_START_TIMEOUT', { server: server.name, seconds: timeoutS })),
          timeoutS * 1000,
        )
        client.onClose(() => {
          clearTimeout(timer)
          const state = files.readState()
          decide(
            state?.status === 'starting' ? 'error' : (state?.status ?? 'error'),
            state?.reason ?? 'its supervisor ended',
          )
        })
        client
          .subscribe(
            0,
            () => {},
            (entry) => decide(entry.status, entry.reason),
          )
          .then((now) => decide(now.status, now.reason), reject)
      })
    } finally {
      client.close()
      await this.#recordAfter(server)
    }
  }

  /** The game's arguments: a Java server's heap (`memory_mb`) goes first, unless its own arguments size it. */
  async #args(server: ServerRecord): Promise<readonly string[]> {
    const memory = await serverSetting(server, 'memory_mb', this.#setting)
    if (gameProfile(server).name !== 'java' || typeof memory !== 'number') return server.args
    if (server.args.some((arg) => /^-Xm[sx]/.test(arg))) return server.args
    return [`-Xms${memory}M`, `-Xmx${memory}M`, ...server.args]
  }

  async #runSpec(server: ServerRecord, mode: StartMode): Promise<RunSpec> {
    const n = async (key: string) => Number(await this.#setting(key))
    return {
      name: server.name,
      profile: server.profile,
      game: gameProfile(server),
      cwd: server.dir,
      command: server.command,
      args: await this.#args(server),
      env: server.env,
      stopCommand: server.stopCommand,
      mode,
      stopTimeoutMs: (await n('servers.stop_timeout_s')) * 1000,
      termTimeoutMs: (await n('servers.kill_timeout_s')) * 1000,
      restart: await this.#restartPolicy(server),
      log: { maxBytes: await n('servers.log_max_bytes'), keep: await n('retention.logs') },
      metrics: await this.#bus.request('metrics:sampling', {}),
    }
  }

  async stop(server: ServerRecord, reason: 'stop' | 'schedule' | 'manager' = 'stop'): Promise<ExitReply> {
    const files = this.files(server.name)
    files.ensureDir()
    return withPowerLock(files.powerLock, server.name, 'stop', () => this.#stop(server, reason))
  }

  async #stop(server: ServerRecord, reason: 'stop' | 'restart' | 'schedule' | 'manager'): Promise<ExitReply> {
    const refused = powerRefusal(server.name, await this.#actingLook(server), 'stop')
    if (refused) throw refused
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
    })
    return settled(outcome, server.name, 'The stop of')
  }

  async restart(server: ServerRecord, reason: 'restart' | 'schedule' = 'restart'): Promise<StartReply> {
    const files = this.files(server.name)
    files.ensureDir()
    return withPowerLock(files.powerLock, server.name, 'restart', async () => {
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
      await withPowerLock(files.powerLock, server.name, 'start', async () => {
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
  async kill(server: ServerRecord): Promise<ExitReply> {
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

  /**
   * The console as a hot backup needs it (hold, the commands between, resume: its profile's),
   * straight to the game, not through the command_send hooks. The supervisor holds the world on
   * this process's behalf and resumes it by itself when this process goes away. A supervisor that
   * dies meanwhile is replaced (the new one adopts the game and keeps the hold while this process
   * lives) and the request is made again: hold, query, flush and resume can each be repeated.
   */
  async withHold<T>(server: ServerRecord, fn: (game: HoldConsole) => Promise<T>): Promise<T> {
    let client = await this.#supervisor(server, 'take commands')
    const holder = ownProcess()
    const ask = async (op: 'hold' | 'send' | 'resume', fields: object): Promise<readonly string[]> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return ((await client.request(op, fields as never)) as SendReply).reply
        } catch (error) {
          // The connection was lost: made again. A killed supervisor whose main thread has ended
          // can still accept on its socket until its last threads are gone, and then drops that
          // connection too; the socket is gone with it, so the attempt after adopts the game.
          if (!client.closed || attempt >= LOST_CONNECTION_ATTEMPTS) throw error
          client = await this.#supervisor(server, 'take commands')
        }
      }
    }
    // The profile the game runs with: its supervisor holds and resumes the world by it.
    const profile = this.runningProfile(server)
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
  reconcile(servers: readonly ServerRecord[]): Promise<void> {
    return this.#follow.reconcile(servers)
  }

  /** Stops following (the manager is stopping); the servers and their supervisors run on. */
  stopFollowing(): void {
    this.#follow.close()
  }

  /** Stops following, and waits for the catch-ups under way (the service is stopping). */
  async close(): Promise<void> {
    this.#follow.close()
    await this.#ingest.close()
  }
}

/** The coded error a start of a run under way, or a stop of none, gets; undefined when it can go ahead. */
function powerRefusal(server: string, now: RunStatus, action: 'start' | 'stop'): SmError | undefined {
  const underWay = runUnderWay(now)
  if (action === 'start' && underWay)
    return new SmError('SM_ERR_SERVER_ALREADY_RUNNING', {
      server,
      status: now.status,
      pid: String(now.pid ?? 'unknown'),
    })
  if (action === 'stop' && !underWay)
    return new SmError('SM_ERR_SERVER_NOT_RUNNING', { server, status: now.status, action: 'be stopped' })
  return undefined
}

/** Why a console command cannot be sent, or undefined. */
export function commandProblem(command: unknown): string | undefined {
  if (typeof command !== 'string' || command.trim() === '') return 'it is empty'
  if (/[\r\n\0]/.test(command)) return 'it holds a line break or NUL (send one command at a time)'
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES) return `it is longer than ${MAX_COMMAND_BYTES} bytes`
  return undefined
}

/** An action's value, or its veto (SM_ERR_SERVER_CHANGE_CANCELLED) or failure thrown. */
export function settled<T>(outcome: ActionOutcome<T>, server: string, action: string): T {
  if (outcome.status === 'cancelled')
    throw new SmError('SM_ERR_SERVER_CHANGE_CANCELLED', {
      server,
      action,
      by: outcome.by,
      reason: outcome.reason,
    })
  if (outcome.status === 'error') throw outcome.error
  const { value, unrecorded } = outcome
  if (unrecorded === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) return value
  // Done is done: a caller told of a failure would do it again.
  const warning = `${action} '${server}' is done, but not recorded in the event log; do not repeat it. ${unrecorded}`
  // A warning of the work's own (a server stopped for a backup) is kept before it.
  const own = (value as { warning?: unknown }).warning
  return { ...value, warning: typeof own === 'string' ? `${own} ${warning}` : warning } as T
}
