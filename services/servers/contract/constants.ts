/** The servers contract's constants and the run-holding types: plain data, imported by the contract's parts and the service alike. */
import type { ServerStatus } from './records'

/** The statuses in which a server's game runs: starting, running, stopping. */
export const ACTIVE: readonly ServerStatus[] = ['starting', 'running', 'stopping']
/** The names of the game profiles (bedrock, java, generic). */
export const PROFILE_NAMES = ['bedrock', 'java', 'generic'] as const
/** Which fields of a server's samples keep their peak when they are downsampled. */
export const SERVER_PEAKS = ['cpu', 'rss'] as const
/** The fields of a server's stored samples. */
export const SERVER_FIELDS = ['cpu', 'rss', 'disk'] as const

/** A server's run held by this process (`server start --direct`): the game stops when the hold ends. */
export interface HeldRun {
  /** The console's last lines when the hold began (lines after them go to `onLine`). */
  readonly tail: readonly string[]
  /** Settles when the supervisor's connection ends: the game has stopped, or this process let go. */
  readonly ended: Promise<void>
}

/** What a holder is told while it holds a run. */
export interface RunHandlers {
  onLine(line: string): void
  onStatus(entry: { status: ServerStatus; reason?: string }): void
}
