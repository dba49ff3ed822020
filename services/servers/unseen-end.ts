import { statSync } from 'node:fs'
import { isDiskFull, type Logger, reasonOf } from '../../kernel'
import { gameAlive } from '../../lib/process-group'
import { isSameProcess } from '../../lib/process-identity'
import { crashVerdict } from './supervisor/crash-policy'
import type { RunStatus } from './supervisor/protocol'
import {
  type GameRef,
  type ProcessRef,
  type RunFiles,
  type RunSpec,
  type RunState,
  runStatusOf,
} from './supervisor/run-files'

/**
 * Records the end of a run whose game and supervisor are both gone, so that no supervisor saw it
 * (a reboot, the OOM killer, kill -9): `stopped` if it was being stopped, else `crashed`, with the
 * restart policy's verdict when a policy is given (`restarted`: the recorded state to restart it
 * from). The caller holds the server's power lock. A look never needs free space: on a full disk
 * this answers what it found and records nothing (the next look records it, and applies the
 * policy then).
 */
export function recordEnd(
  files: RunFiles,
  state: RunState,
  policy: RunSpec['restart'] | undefined,
  name: string,
  logger: Logger,
): { status: RunStatus; restarted?: RunState } {
  const { status, reason } = endOf(state)
  const verdict =
    policy && status === 'crashed'
      ? crashVerdict(policy, state.restarts, knownUptime(files, state.game))
      : { restarts: state.restarts, willRestart: false }
  const lastKnown = lastWrite(files)
  try {
    const { state: now } = files.changeStatus(
      state,
      status,
      status === 'crashed'
        ? { reason, exitCode: null, signal: null, ...verdict, ...lastKnown }
        : { reason, exitCode: null, signal: null, ...lastKnown },
      { game: undefined, supervisor: undefined, restarts: verdict.restarts, exitCode: null, signal: null },
    )
    const then = verdict.willRestart ? `; restarting it (restart ${verdict.restarts} of ${policy?.maxRestarts})` : ''
    if (status === 'stopped') logger.info(`Server '${name}': ${reason}.`)
    else logger.warn(`Server '${name}': ${reason}${then}.`)
    return { status: filesView(now), restarted: verdict.willRestart ? now : undefined }
  } catch (error) {
    if (!isDiskFull(error)) throw error
    logger.warn(`the end of '${name}' is not recorded while the disk is full: ${reasonOf(error)}`)
    return { status: unrecordedEnd(state) }
  }
}

/** How a run that ended unseen ended: `stopped` if it was being stopped, else `crashed`. */
function endOf(state: RunState): { status: 'stopped' | 'crashed'; reason: string } {
  return state.status === 'stopping'
    ? { status: 'stopped', reason: 'its process ended while it was being stopped, with no supervisor watching it' }
    : { status: 'crashed', reason: 'its process ended while no supervisor watched it' }
}

/** The status of a run that ended unseen, as a look answers it before (or without) recording it. */
export function unrecordedEnd(state: RunState): RunStatus {
  return {
    ...filesView(state),
    ...endOf(state),
    since: new Date().toISOString(),
    restarts: state.restarts,
    exitCode: null,
    signal: null,
  }
}

/** A run's status as its files say it, its game checked against /proc (no pid: not running). */
export function filesView(state: RunState | undefined): RunStatus {
  const base: RunStatus = { ...runStatusOf(state), pid: undefined, startedAt: undefined }
  const game = state?.game
  if (!state || !game || !gameRunning(game)) return base
  return {
    ...base,
    status: state.status === 'stopping' ? 'running' : state.status,
    pid: game.pid,
    startedAt: game.startedAt,
  }
}

export function alive(ref: ProcessRef | undefined): boolean {
  return ref !== undefined && isSameProcess(ref.pid, ref.identity)
}

/** Whether a recorded game still runs: any process of its group (lib/process-group.ts), its leader or what outlived it. */
export function gameRunning(game: ProcessRef | undefined): boolean {
  return game !== undefined && gameAlive(game.pid, game.identity)
}

/** When the run's game last wrote its console log (it lived until then at least), if the log is there. */
function lastWrite(files: RunFiles): { lastKnown?: string } {
  try {
    return { lastKnown: statSync(files.log).mtime.toISOString() }
  } catch {
    return {}
  }
}

/**
 * How long a run that ended unseen is known to have lasted: until its console log's last write
 * (the game wrote it; nobody saw it end, so it may have lasted longer).
 */
function knownUptime(files: RunFiles, game: GameRef | undefined): number {
  if (!game) return 0
  try {
    return Math.max(0, statSync(files.log).mtimeMs - Date.parse(game.startedAt))
  } catch {
    return 0
  }
}
