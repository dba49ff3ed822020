import { SmError } from '../../../kernel/errors'
import type { ServerStatus } from './run-files'

/**
 * Where a supervisor's run is. `claiming`: binding its socket, nothing decided yet. `killing`:
 * SIGKILL sent (its status stays what it was). `restarting`: it crashed and the policy restarts
 * it after the delay (its status is `crashed`). `stopped`, `crashed` and `error` are final: the
 * supervisor ends once they are written.
 */
export type RunPhase =
  | 'claiming'
  | 'starting'
  | 'running'
  | 'stopping'
  | 'killing'
  | 'restarting'
  | 'stopped'
  | 'crashed'
  | 'error'

/** What can happen to a run (from its game, its console, a request or a timer). */
export type RunEvent = keyof typeof RUN_TRANSITIONS

interface Transition {
  readonly from: readonly RunPhase[]
  readonly to: RunPhase
  /** Writes no status change when the status already says it (taking over a run in its own status). */
  readonly quiet?: true
}

/**
 * Every transition of a supervisor's run, in one place: the event, the phases it may happen in,
 * the phase it leads to. Anything else is refused (SM_ERR_SERVER_TRANSITION_ILLEGAL).
 */
export const RUN_TRANSITIONS = {
  /** The recorded game lives on: this supervisor takes it over (`adopt-starting`: before its ready line). */
  adopt: { from: ['claiming'], to: 'running', quiet: true },
  'adopt-starting': { from: ['claiming'], to: 'starting', quiet: true },
  /** A game process was started (`launch-ready`: its profile has no ready line, so it is up at once). */
  launch: { from: ['claiming', 'restarting'], to: 'starting' },
  'launch-ready': { from: ['claiming', 'restarting'], to: 'running' },
  /** It could not be started (no console, no such command). */
  'launch-failed': { from: ['claiming', 'restarting'], to: 'error' },
  /** Its ready line. */
  ready: { from: ['starting'], to: 'running' },
  /** A stop was asked: the stop command, then SIGTERM, then SIGKILL. */
  stop: { from: ['starting', 'running'], to: 'stopping' },
  kill: { from: ['starting', 'running', 'stopping', 'killing'], to: 'killing' },
  /** A stop (or kill) while a crash restart is due: it is not restarted. */
  'stop-restart': { from: ['restarting'], to: 'stopped' },
  /** The game ended after a stop or kill, or by itself with exit code 0. */
  'exit-asked': { from: ['stopping', 'killing'], to: 'stopped' },
  'exit-clean': { from: ['starting', 'running'], to: 'stopped' },
  /** The game ended on its own: a crash, restarted after the delay or left so by the policy. */
  'crash-restart': { from: ['starting', 'running'], to: 'restarting' },
  crash: { from: ['starting', 'running'], to: 'crashed' },
  /**
   * A start of its own (not a crash restart) ended before its ready line: it cannot work as it
   * is (a corrupt jar, a missing library, a port in use), so it is an error, not restarted.
   */
  'start-failed': { from: ['starting'], to: 'error' },
} as const satisfies Record<string, Transition>

/** The status each phase shows (undefined: it keeps the one it has). */
export const STATUS_OF: { readonly [P in RunPhase]: ServerStatus | undefined } = {
  claiming: undefined,
  starting: 'starting',
  running: 'running',
  stopping: 'stopping',
  killing: undefined,
  restarting: 'crashed',
  stopped: 'stopped',
  crashed: 'crashed',
  error: 'error',
}

/** Phases in which a game runs or is about to run again: what a stop or a kill can end. */
export const LIVE: readonly RunPhase[] = ['starting', 'running', 'stopping', 'killing', 'restarting']

/** Phases after which nothing happens: the supervisor ends. */
export const FINAL: readonly RunPhase[] = ['stopped', 'crashed', 'error']

/** A supervisor's run as a state machine: its phase, changed only by the declared transitions. */
export class RunMachine {
  readonly #server: string
  #phase: RunPhase = 'claiming'

  constructor(server: string) {
    this.#server = server
  }

  get phase(): RunPhase {
    return this.#phase
  }

  /** Whether `event` may happen now. */
  can(event: RunEvent): boolean {
    return (RUN_TRANSITIONS[event].from as readonly RunPhase[]).includes(this.#phase)
  }

  /** Enters the phase `event` leads to, and returns its transition; refused when it cannot happen now. */
  apply(event: RunEvent): { readonly from: RunPhase; readonly to: RunPhase; readonly quiet: boolean } {
    if (!this.can(event))
      throw new SmError('SM_ERR_SERVER_TRANSITION_ILLEGAL', { server: this.#server, event, phase: this.#phase })
    const transition: Transition = RUN_TRANSITIONS[event]
    const from = this.#phase
    this.#phase = transition.to
    return { from, to: transition.to, quiet: transition.quiet === true }
  }
}
