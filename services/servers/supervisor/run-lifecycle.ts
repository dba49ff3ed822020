import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { reasonOf } from '../../../kernel/errors'
import { gameAlive, leftovers } from '../../../lib/process-group'
import { isSameProcess, processIdentity, sealedStdio } from '../../../lib/process-identity'
import { crashVerdict } from './crash-policy'
import type { GameConsole } from './game-console'
import type { LogRotation } from './log-rotation'
import type { ConsoleProfile } from './profiles'
import type { ExitReply } from './protocol'
import type { RunFiles, RunSpec } from './run-files'
import type { RunRecord } from './run-record'
import type { WorldHold } from './world-hold'

/** How often an adopted game (not our child, so no exit event) is checked. */
const ADOPTED_POLL_MS = 250

/** What a run's lifecycle drives: the record it writes, the console it feeds, the hold its game's end releases. */
export interface LifecycleParts {
  readonly files: RunFiles
  readonly spec: RunSpec
  readonly profile: ConsoleProfile
  /** The starter's values of PASSED_ENV (protocol.ts); then the profile's and the server's own apply. */
  readonly env: Readonly<Record<string, string>>
  readonly record: RunRecord
  readonly console: GameConsole
  readonly hold: WorldHold
  readonly rotation: LogRotation
}

/**
 * A run's game process from its launch (or adoption) to its end: its exit, a restart after a
 * crash per the policy, a stop (the stop command, then SIGTERM, then SIGKILL) and a kill. What
 * is left of its process group when its leader ends is ended before anything else happens.
 */
export class RunLifecycle {
  readonly #files: RunFiles
  readonly #spec: RunSpec
  readonly #profile: ConsoleProfile
  readonly #env: Readonly<Record<string, string>>
  readonly #record: RunRecord
  readonly #console: GameConsole
  readonly #hold: WorldHold
  readonly #rotation: LogRotation
  #adopted = false
  #escalated: ExitReply['escalated']
  #timers: NodeJS.Timeout[] = []
  #restartTimer: NodeJS.Timeout | undefined
  #adoptedPoll: NodeJS.Timeout | undefined
  /** Set while what is left of an ended leader's group is being ended (#leaderEnded). */
  #draining: NodeJS.Timeout | undefined
  #exitWaiters: ((reply: ExitReply) => void)[] = []

  constructor(parts: LifecycleParts) {
    this.#files = parts.files
    this.#spec = parts.spec
    this.#profile = parts.profile
    this.#env = parts.env
    this.#record = parts.record
    this.#console = parts.console
    this.#hold = parts.hold
    this.#rotation = parts.rotation
  }

  /** Whether the game it watches was adopted (not started by it, so no exit event tells its end). */
  get adopted(): boolean {
    return this.#adopted
  }

  /** A start, or the restart of a crash found after the fact, which counts in its streak. */
  launchFirst(): void {
    const restarts = this.#spec.crashRestart ?? 0
    this.#record.update({ mode: this.#spec.mode, restarts })
    this.#launch(restarts > 0 ? restartReason(restarts, this.#spec.restart.maxRestarts) : undefined)
  }

  #launch(reason: string | undefined): void {
    this.#escalated = undefined
    const spec = this.#spec
    try {
      this.#console.prepareInput()
    } catch (error) {
      this.#failed(`its console could not be prepared: ${reasonOf(error)}`)
      return
    }
    // A log that cannot be rotated now (a full disk) is appended to: a game is not kept down for it.
    this.#rotation.rotate()
    const input = openSync(this.#files.fifo, constants.O_RDWR)
    const output = openSync(this.#files.log, 'a', 0o600)
    const nothing = openSync('/dev/null', 'r+')
    const offset = this.#files.logSize()
    this.#console.follow(offset)
    let child: ChildProcess
    try {
      child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...this.#env, ...(spec.profile === 'bedrock' ? { LD_LIBRARY_PATH: '.' } : {}), ...spec.env },
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
    this.#record.update({ game, exitCode: null, signal: null })
    child.once('exit', (code, signal) => this.#leaderEnded(code, signal))
    this.#record.enter(this.#profile.ready ? 'launch' : 'launch-ready', {
      reason: reason ?? `started (PID ${child.pid})`,
    })
  }

  /** Takes over the recorded game, which still runs. */
  adopt(startedAt: string): void {
    this.#adopted = true
    const state = this.#record.state
    const game = state.game
    if (!game) return
    // A game that was still starting is read from where it started, to find its ready line.
    const starting = state.status === 'starting'
    const from = starting ? game.logOffset : this.#files.logSize()
    this.#console.follow(from)
    this.#record.enter(starting ? 'adopt-starting' : 'adopt', {
      reason: `adopted (PID ${game.pid}, started ${startedAt})`,
    })
    // Its leader, not the rest of its group: a group whose leader is gone is ended (#leaderEnded).
    this.#adoptedPoll = setInterval(() => {
      if (!isSameProcess(game.pid, game.identity)) this.#leaderEnded(null, null)
    }, ADOPTED_POLL_MS)
  }

  #failed(reason: string): void {
    this.#record.update({ game: undefined })
    this.#record.enter('launch-failed', { reason })
  }

  /**
   * The process the run started ended. The rest of its group (a wrapper's game, a start script's
   * children) is ended before anything else happens, as a stop would end it (the stop command
   * unless one was sent, then SIGTERM, then SIGKILL): a restart never runs beside a survivor, and
   * a survivor never keeps reading the console. The run ends once the whole group has.
   */
  #leaderEnded(code: number | null, signal: NodeJS.Signals | null): void {
    const game = this.#record.state.game
    if (!game || this.#draining) return
    const left = leftovers(game.pid, game.identity)
    if (left.length === 0) {
      this.#exited(code, signal)
      return
    }
    if (this.#adoptedPoll) clearInterval(this.#adoptedPoll)
    this.#adoptedPoll = undefined
    this.#record.log(
      `its process ${game.pid} ended (${describeExit(code, signal)}), leaving ${left.length} of its process group (PID ${left.join(', ')}): ending them first`,
    )
    const phase = this.#record.phase
    if (phase !== 'stopping' && phase !== 'killing') this.#askToEnd()
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
      this.#console.write(this.#spec.stopCommand)
    } catch {
      this.#signal('SIGTERM') // no console: the next best polite request
    }
    this.#timers.push(
      setTimeout(() => this.#signal('SIGTERM'), stopTimeoutMs),
      setTimeout(() => this.#signal('SIGKILL'), stopTimeoutMs + termTimeoutMs),
    )
  }

  #exited(code: number | null, signal: NodeJS.Signals | null): void {
    const game = this.#record.state.game
    if (!game) return
    this.#console.poll() // the game's last words reach followers before the status does
    if (this.#adoptedPoll) clearInterval(this.#adoptedPoll)
    this.#adoptedPoll = undefined
    this.#clearTimers()
    if (this.#hold.held) this.#hold.release() // the held process is gone; a restarted one is not held
    this.#record.update({ game: undefined, exitCode: code, signal })
    const how = this.#adopted && code === null && signal === null ? 'ended' : describeExit(code, signal)
    const reply: ExitReply = { exitCode: code, signal, escalated: this.#escalated }
    const asked = this.#record.can('exit-asked')
    if (asked || code === 0) {
      const why = this.#record.phase === 'killing' ? 'killed' : asked ? 'stopped' : 'exited by itself'
      this.#settleWaiters(reply)
      this.#record.enter(asked ? 'exit-asked' : 'exit-clean', { reason: `${why}: ${how}`, exitCode: code, signal })
      return
    }
    // A start that never came up (its ready line), started by a user, not by a crash restart:
    // restarting it would fail alike, so it is an error with its reason, as a failed launch is.
    if (this.#record.phase === 'starting' && this.#record.state.restarts === 0 && !this.#adopted) {
      this.#settleWaiters(reply)
      this.#record.enter('start-failed', {
        reason: `it ended before it was up (${how}), and is not restarted: it would fail alike`,
        exitCode: code,
        signal,
      })
      return
    }
    // A crash. A run longer than the minimum uptime starts a new streak.
    const { restart } = this.#spec
    const { restarts, willRestart } = crashVerdict(
      restart,
      this.#record.state.restarts,
      Date.now() - Date.parse(game.startedAt),
    )
    this.#record.update({ restarts })
    this.#settleWaiters(reply)
    const extra = { reason: `crashed: ${how}`, exitCode: code, signal, restarts, willRestart }
    this.#record.enter(willRestart ? 'crash-restart' : 'crash', extra)
    if (!willRestart) return
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined
      this.#launch(restartReason(restarts, restart.maxRestarts))
    }, restart.delayMs)
  }

  #clearTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers = []
  }

  #settleWaiters(reply: ExitReply): void {
    const waiters = this.#exitWaiters
    this.#exitWaiters = []
    for (const waiter of waiters) waiter(reply)
  }

  #signal(signal: NodeJS.Signals): void {
    const game = this.#record.state.game
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

  /** Stops the game (or a restart that is due); answered once it has ended. */
  stop(): Promise<ExitReply> {
    const waiting = new Promise<ExitReply>((resolve) => this.#exitWaiters.push(resolve))
    if (this.#record.can('stop-restart')) {
      clearTimeout(this.#restartTimer)
      this.#restartTimer = undefined
      const { exitCode, signal } = this.#record.state
      this.#settleWaiters({ exitCode, signal, escalated: undefined })
      this.#record.enter('stop-restart', { reason: 'stopped while waiting to restart after a crash' })
      return waiting
    }
    // Already on its way out: the exit answers every waiter.
    const phase = this.#record.phase
    if (phase === 'stopping' || phase === 'killing') return waiting
    this.#record.enter('stop', { reason: 'stop requested' })
    this.#clearTimers()
    this.#askToEnd()
    return waiting
  }

  /** SIGKILL to the game's group (a restart that is due is stopped instead); answered once it has ended. */
  kill(): Promise<ExitReply> {
    if (this.#record.can('stop-restart')) return this.stop()
    const waiting = new Promise<ExitReply>((resolve) => this.#exitWaiters.push(resolve))
    this.#record.enter('kill')
    this.#signal('SIGKILL')
    return waiting
  }
}

function restartReason(restarts: number, maxRestarts: number): string {
  return `restart ${restarts} of ${maxRestarts} after a crash`
}

function describeExit(code: number | null, signal: string | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`
}
