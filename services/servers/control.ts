import { AsyncLocalStorage } from 'node:async_hooks'
import { existsSync, statSync } from 'node:fs'
import {
  type ActionOutcome,
  type BusScope,
  isDiskFull,
  type Logger,
  performAction,
  reasonOf,
  reportObserved,
  SmError,
} from '../../kernel'
import { lastConsoleLines } from '../../lib/log-tail'
import { isSameProcess, ownProcess } from '../../lib/process-identity'
import type { Projections } from '../events/contract'
import type { HoldConsole } from './backups/hot-backup'
import type { ServerRecord, StartReply } from './contract'
import { checkStartable } from './eula'
import { powerLockHeld, withFileLock, withPowerLock } from './power-lock'
import { gameProfile, refusalIn } from './profiles'
import { serverSetting } from './server-settings'
import { readStatuses, recordedJournalSeq, statusProjection } from './status-projection'
import { SupervisorClient, spawnSupervisor } from './supervisor/client'
import { MAX_COMMAND_BYTES } from './supervisor/limits'
import { consoleProfile } from './supervisor/profiles'
import type { ExitReply, RunStatus, SendReply, ServerSample } from './supervisor/protocol'
import { ACTIVE, RunFiles, type RunSpec, type RunState, type StartMode, type StatusEntry } from './supervisor/run-files'
import { alive, filesView, recordEnd, unrecordedEnd } from './unseen-end'

type Get = (key: string) => Promise<unknown>

/** Set while this async context records a status journal (so a hook reading a status does not wait on itself). */
const recordingNow = new AsyncLocalStorage<true>()

/**
 * Process control of the game servers, from any process of the data directory: the manager, or
 * a CLI that runs without one. The supervisors own the processes; this side starts them, asks
 * them, adopts games whose supervisor died, and turns their status journals into facts.
 */
export class ServerControl {
  readonly #bus: BusScope
  readonly #projections: Projections
  readonly #dataDir: string
  readonly #setting: Get
  readonly #logger: Logger
  readonly #watches = new Map<string, SupervisorClient>()
  readonly #connecting = new Set<string>()
  /**
   * Servers whose supervisor this process has just started: the next watch of each asks for every
   * line that supervisor read (its boot lines came before anyone could follow), not just the new ones.
   */
  readonly #fresh = new Set<string>()
  readonly #onSample: (server: string, sample: ServerSample) => void
  #watching = false

  /** `onSample`: a followed server's supervisor took a resource sample (in the manager). */
  constructor(
    bus: BusScope,
    projections: Projections,
    dataDir: string,
    setting: Get,
    logger: Logger,
    onSample: (server: string, sample: ServerSample) => void = () => {},
  ) {
    this.#bus = bus
    this.#projections = projections
    this.#dataDir = dataDir
    this.#setting = setting
    this.#logger = logger
    this.#onSample = onSample
  }

  files(name: string): RunFiles {
    return RunFiles.of(this.#dataDir, name)
  }

  /** The server's status now: its supervisor's word, else what its state file and /proc say. */
  async status(server: ServerRecord): Promise<RunStatus> {
    return this.#look(server, false)
  }

  /** A look at the server; `acting`: by a power action on it, which holds its power lock. */
  async #look(server: ServerRecord, acting: boolean): Promise<RunStatus> {
    await this.#finishInterrupted(server)
    const status = await this.#current(server, acting)
    // Recorded after the look, which may itself have found a crash nobody saw. A look never
    // needs free space: on a full disk the journal stays unrecorded (the next look records it).
    await this.#ingestAfter(server)
    return status
  }

  /**
   * Records the journal after a look or a power action: what was done stays done, so a full disk
   * leaves the journal unrecorded (the next look records it) instead of failing the work.
   */
  async #ingestAfter(server: ServerRecord): Promise<void> {
    await this.ingest(server).catch((error: unknown) => {
      if (!isDiskFull(error)) throw error
      this.#logger.warn(
        `the status journal of '${server.name}' is not recorded while the disk is full: ${reasonOf(error)}`,
      )
    })
  }

  async #current(server: ServerRecord, acting: boolean): Promise<RunStatus> {
    const files = this.files(server.name)
    return (await this.#ask(server, files)) ?? this.#unsupervised(server, files, acting)
  }

  /** The supervisor's word, when one answers. */
  async #ask(server: ServerRecord, files: RunFiles): Promise<RunStatus | undefined> {
    let client = await SupervisorClient.connect(files, server.name)
    // A save hold whose supervisor died: a new one adopts the game and resumes it if its holder is gone too.
    if (!client && files.readHold() && alive(files.readState()?.game))
      client = await this.#supervisor(server, 'be adopted').catch((error: unknown) => {
        // The status below still answers; the hold stays until a supervisor can take it over.
        this.#logger.warn(`No supervisor could adopt '${server.name}' to resume its save hold: ${reasonOf(error)}`)
        return undefined
      })
    if (!client) return undefined
    try {
      return await client.status()
    } catch {
      return undefined // it ended between connect and answer: the files say the rest
    } finally {
      client.close()
    }
  }

  /**
   * Status without a supervisor: a live recorded game is running. A dead one that should be
   * running ended while no supervisor watched it (both gone: a reboot, the OOM killer, kill -9):
   * the look that finds it records it and applies the restart policy to it.
   */
  async #unsupervised(server: ServerRecord, files: RunFiles, acting: boolean): Promise<RunStatus> {
    const state = files.readState()
    const seen = filesView(state)
    if (!state || seen.pid !== undefined || !ACTIVE.includes(state.status)) return seen
    // A start, stop or restart of it that finds it: recorded, and that action decides what comes next.
    if (acting) return recordEnd(files, state, undefined, server.name, this.#logger).status
    // A power action in flight (a supervisor being started) owns the files; look again later.
    if (powerLockHeld(files.powerLock)) return seen
    return this.#endFound(server, files)
  }

  /**
   * Records a run that ended unseen and applies the restart policy to it, once: under the power
   * lock, and only if the files still say so (another process that found it first has dealt with
   * it). One that finds the lock taken answers what the files say and leaves it to its holder.
   */
  async #endFound(server: ServerRecord, files: RunFiles): Promise<RunStatus> {
    try {
      const ended = await withPowerLock(files.powerLock, server.name, 'crash restart', async () => {
        const state = files.readState()
        if (!state || !ACTIVE.includes(state.status) || alive(state.game) || alive(state.supervisor)) return undefined
        const found = recordEnd(files, state, await this.#restartPolicy(server), server.name, this.#logger)
        if (!found.restarted) return found.status
        await this.#relaunch(server, files, found.restarted)
        return undefined
      })
      if (ended) return ended
    } catch (error) {
      // A look never needs free space: it answers what it found, and the next look records it.
      if (isDiskFull(error)) {
        const state = files.readState()
        this.#logger.warn(`the end of '${server.name}' is not recorded while the disk is full: ${reasonOf(error)}`)
        return state && ACTIVE.includes(state.status) ? unrecordedEnd(state) : filesView(state)
      }
      if (!(error instanceof SmError && error.code === 'SM_ERR_SERVER_BUSY')) throw error
    }
    return (await this.#ask(server, files)) ?? filesView(files.readState())
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
  async #relaunch(server: ServerRecord, files: RunFiles, crashed: RunState): Promise<void> {
    files.writeSpec({ ...(await this.#runSpec(server, crashed.mode)), crashRestart: crashed.restarts })
    const announced = await this.#spawn(files, server.name)
    // Served: the restart, or (SUPERVISED) a supervisor that a command started meanwhile, which says what it found.
    if (announced.ok || announced.error.code === 'SM_ERR_SERVER_SUPERVISED') {
      if (this.#watching) void this.#watch(server)
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

  /**
   * Turns the status journal entries not yet recorded into `server_status_change` facts (and
   * `server_crash` for crashes), in order. Entries written while no manager ran are recorded
   * with the time they happened.
   */
  async ingest(server: ServerRecord): Promise<void> {
    // Asked from inside a recording (a hook reading a status): what is being recorded is enough.
    if (recordingNow.getStore()) return
    // Never started: no journal to read.
    if (!this.files(server.name).exists()) return
    const previous = this.#ingesting.get(server.name) ?? Promise.resolve()
    const next = previous.then(() =>
      recordingNow.run(true, async () => {
        // One process at a time records a journal; another waits for it (or leaves it to it).
        await withFileLock(this.files(server.name).ingestLock, 5_000, () => this.#ingestJournal(server.name))
      }),
    )
    const settledNext = next.catch(() => {})
    this.#ingesting.set(server.name, settledNext)
    void settledNext.then(() => {
      if (this.#ingesting.get(server.name) === settledNext) this.#ingesting.delete(server.name)
    })
    return next
  }

  readonly #ingesting = new Map<string, Promise<void>>()

  /**
   * Records, for every server, the journal entries the log does not have yet (asked before each
   * read of the log, so it shows what supervisors saw while no manager ran). Cheap when there
   * is nothing new: one projection query, then the last line of each journal.
   */
  async ingestPending(servers: readonly ServerRecord[]): Promise<void> {
    if (recordingNow.getStore()) return
    const recorded = await this.#projections.read(statusProjection.name, readStatuses)
    const seen = new Map(recorded.map((s) => [s.name, s.journalSeq]))
    for (const server of servers) {
      if (this.files(server.name).lastJournalSeq() <= (seen.get(server.name) ?? 0)) continue
      await this.ingest(server).catch((error) =>
        this.#logger.warn(`Recording the status journal of '${server.name}' failed: ${reasonOf(error)}`),
      )
    }
  }

  async #ingestJournal(name: string): Promise<void> {
    const seen = await this.#projections.read(statusProjection.name, (sql) => recordedJournalSeq(sql, name))
    for (const entry of this.files(name).readJournal(seen)) await this.#record(name, entry)
  }

  /** One entry's facts: the status change, and for a crash the crash. */
  async #record(name: string, entry: StatusEntry): Promise<void> {
    await this.#observe('before_server_status_change', 'after_server_status_change', {
      serverName: name,
      status: entry.status,
      previousStatus: entry.previous,
      at: entry.at,
      reason: entry.reason,
      journalSeq: entry.seq,
    })
    if (entry.status === 'crashed' && ACTIVE.includes(entry.previous))
      await this.#observe('before_server_crash', 'after_server_crash', {
        serverName: name,
        exitCode: entry.exitCode ?? null,
        signal: entry.signal ?? null,
        at: entry.at,
        restarts: entry.restarts ?? 0,
        willRestart: entry.willRestart ?? false,
      })
  }

  async #observe(
    before: 'before_server_status_change' | 'before_server_crash',
    after: 'after_server_status_change' | 'after_server_crash',
    payload: object,
  ): Promise<void> {
    const { vetoedBy } = await reportObserved(this.#bus, { before, after, payload: payload as never })
    if (vetoedBy)
      this.#logger.warn(`${vetoedBy} tried to veto ${before}, which reports what already happened; ignored.`)
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
    const refused = powerRefusal(server.name, await this.#look(server, true), 'start')
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
    this.#unwatch(server.name)
    const announced = await this.#spawn(files, server.name)
    if (!announced.ok) throw SmError.fromWire(announced.error)
    // Followed from its first line: the boot lines reach the console's followers (the web page) as they come.
    if (this.#watching) void this.#watch(server)
    const timeoutS = Number(await this.#setting('servers.start_timeout_s'))
    return this.#awaitUp(server, files, timeoutS)
  }

  /** Starts a supervisor, whose first watch then reads its lines from the start (`#fresh`). */
  async #spawn(files: RunFiles, name: string, purpose: 'run' | 'adopt' = 'run'): ReturnType<typeof spawnSupervisor> {
    if (this.#watching) this.#fresh.add(name)
    const announced = await spawnSupervisor(files, name, purpose)
    if (!announced.ok && announced.error.code !== 'SM_ERR_SERVER_SUPERVISED') this.#fresh.delete(name)
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
      await this.#ingestAfter(server)
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
    const refused = powerRefusal(server.name, await this.#look(server, true), 'stop')
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
          await this.#ingestAfter(server)
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
      const now = await this.#look(server, true)
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
    if (!intent || this.#finishing.has(server.name) || isSameProcess(intent.holder.pid, intent.holder.identity)) return
    this.#finishing.add(server.name)
    try {
      await withPowerLock(files.powerLock, server.name, 'start', async () => {
        const left = files.readIntent()
        if (!left || isSameProcess(left.holder.pid, left.holder.identity)) return
        files.writeIntent({ ...left, holder: ownProcess() })
        const now = await this.#current(server, true)
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
    } finally {
      this.#finishing.delete(server.name)
    }
  }

  readonly #finishing = new Set<string>()

  /** SIGKILL at once, bypassing any power action in progress (its identity is checked first). */
  async kill(server: ServerRecord): Promise<ExitReply> {
    const files = this.files(server.name)
    const client = await SupervisorClient.connect(files, server.name)
    if (client) {
      try {
        return (await client.request('kill', {})) as ExitReply
      } finally {
        client.close()
        await this.#ingestAfter(server)
      }
    }
    const state = files.readState()
    const game = state?.game
    if (!state || !game || !isSameProcess(game.pid, game.identity))
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
    await this.#ingestAfter(server)
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
        const line = refusalIn(gameProfile(server), sent.reply)
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
      try {
        return ((await client.request(op, fields as never)) as SendReply).reply
      } catch (error) {
        if (!client.closed) throw error
        client = await this.#supervisor(server, 'take commands')
        return ((await client.request(op, fields as never)) as SendReply).reply
      }
    }
    const replies = consoleProfile(gameProfile(server))
    try {
      return await fn({
        hold: () => ask('hold', { holder }),
        send: (command, replyMaxMs) => ask('send', { command, collect: true, replyMaxMs }),
        resume: () => ask('resume', {}),
        acknowledged: (command, reply) => replies.acknowledged(command, reply),
      })
    } finally {
      client.close()
    }
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
    if (!game || !isSameProcess(game.pid, game.identity))
      throw new SmError('SM_ERR_SERVER_NOT_RUNNING', { server: server.name, status: 'stopped', action })
    const announced = await this.#spawn(files, server.name, 'adopt')
    if (!announced.ok && announced.error.code === 'SM_ERR_SERVER_NOT_RUNNING') {
      const now = await this.#look(server, acting)
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
    if (this.#watching) void this.#watch(server)
    return adopted
  }

  // ---- the manager's live view ----

  /**
   * In the manager: adopts every server whose game runs without a supervisor, records what
   * happened while no manager ran, and follows each running server (status facts as they
   * happen, console lines on the bus as `servers:console`, resource samples to `onSample`). Processes it did not start are left alone.
   */
  async reconcile(servers: readonly ServerRecord[]): Promise<void> {
    this.#watching = true
    for (const server of servers) {
      try {
        const now = await this.status(server)
        if (runUnderWay(now)) {
          if (now.supervisorPid === undefined) (await this.#supervisor(server, 'be adopted')).close()
          await this.#watch(server)
        }
      } catch (error) {
        this.#logger.warn(`Server '${server.name}' could not be reconciled: ${reasonOf(error)}`)
      }
    }
  }

  #watch(server: ServerRecord): Promise<void> {
    // The socket's callbacks keep the context they are made in: never a recording's, whose
    // ingests are skipped, whatever started this watch (a plugin's crash hook restarting it).
    return recordingNow.exit(() => this.#follow(server))
  }

  async #follow(server: ServerRecord): Promise<void> {
    // One watch per server, also when two ask at once (a crash restart found by a look, and the reconcile that looked).
    if (!this.#watching || this.#watches.has(server.name) || this.#connecting.has(server.name)) return
    this.#connecting.add(server.name)
    const client = await SupervisorClient.connect(this.files(server.name), server.name).finally(() =>
      this.#connecting.delete(server.name),
    )
    if (!client) return
    this.#watches.set(server.name, client)
    // A supervisor this process started: every line it read, in order, before the ones that follow.
    const fresh = this.#fresh.delete(server.name)
    const emit = (line: string) => void this.#bus.emit('servers:console', { serverName: server.name, line })
    let early: string[] | undefined = fresh ? [] : undefined
    client.onClose(() => {
      if (this.#watches.get(server.name) !== client) return
      this.#watches.delete(server.name)
      if (!this.#watching) return
      // The run ended, or its supervisor died: record it, and adopt a game that lives on.
      void this.reconcile([server]).catch(() => {})
    })
    try {
      const { tail } = await client.subscribe(
        fresh ? 'run' : 0,
        (line) => (early ? early.push(line) : emit(line)),
        () =>
          void this.ingest(server).catch((error) =>
            this.#logger.warn(`Recording a status of '${server.name}' failed: ${reasonOf(error)}`),
          ),
        (sample) => this.#onSample(server.name, sample),
      )
      for (const line of [...tail, ...(early ?? [])]) emit(line)
      early = undefined
      await this.#ingestAfter(server)
    } catch {
      client.close()
    }
  }

  /** Stops following one server (its supervisor is gone); nothing is recorded for it. */
  #unwatch(name: string): void {
    const client = this.#watches.get(name)
    if (!client) return
    this.#watches.delete(name)
    client.close()
  }

  /** Stops following (the manager is stopping); the servers and their supervisors run on. */
  close(): void {
    this.#watching = false
    for (const client of this.#watches.values()) client.close()
    this.#watches.clear()
  }
}

/** Whether a run is under way: its game starting, running or stopping, or a supervisor still serving it. */
export function runUnderWay(now: RunStatus): boolean {
  return ACTIVE.includes(now.status) || now.supervisorPid !== undefined
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
