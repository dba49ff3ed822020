import type { RunSpec } from './run-files'

/** What the restart policy makes of one crash. */
export interface CrashVerdict {
  /** Crash restarts in the streak, this one's restart included when there is one. */
  readonly restarts: number
  readonly willRestart: boolean
}

/**
 * The restart policy applied to one crash, wherever it is found (by the supervisor that saw it,
 * or by whoever finds it after the fact): a run that lasted at least the minimum uptime ends the
 * streak, and the crash is restarted while the streak has restarts left.
 */
export function crashVerdict(
  policy: Pick<RunSpec['restart'], 'enabled' | 'maxRestarts' | 'minUptimeMs'>,
  streak: number,
  uptimeMs: number,
): CrashVerdict {
  const before = uptimeMs >= policy.minUptimeMs ? 0 : streak
  const willRestart = policy.enabled && before < policy.maxRestarts
  return { restarts: willRestart ? before + 1 : before, willRestart }
}
