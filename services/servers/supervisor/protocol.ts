import type { WireError } from '../../../kernel/errors'
import type { ServerSample, ServerStatus } from '../contract'
import type { ProcessRef, StatusEntry } from './run-files'

export type { ExitReply, RunStatus, SendReply, ServerSample } from '../contract'

/**
 * The supervisor's socket protocol: JSON lines, like the bus bridge (services/bridge/protocol).
 * Any process of the data directory's user can ask a server's supervisor for its status, send
 * console commands, follow the console, hold the world for a backup and stop it.
 */
export type SupervisorRequest =
  | { readonly t: 'req'; readonly id: number; readonly op: 'status' }
  | {
      readonly t: 'req'
      readonly id: number
      readonly op: 'send'
      readonly command: string
      readonly collect?: boolean
      /**
       * How long a reply may take to complete (a world's flush for a hot backup can take a while);
       * the default suits ordinary commands.
       */
      readonly replyMaxMs?: number
      /**
       * The reply ends only once a message matches this (or an error line): a hot backup's flush
       * done line. Without it, a reply the profile does not know ends when the console is quiet.
       */
      readonly until?: string
    }
  | { readonly t: 'req'; readonly id: number; readonly op: 'stop' | 'kill' }
  /**
   * Follow the console and status changes; the reply carries the status and the last `tail`
   * lines, or with `'run'` every line this supervisor has read (at most its last 200): for a
   * follower of a run that began before it could subscribe (its boot lines came first).
   */
  | { readonly t: 'req'; readonly id: number; readonly op: 'subscribe'; readonly tail?: number | 'run' }
  /**
   * Holds the world for a hot backup on behalf of `holder` (the process doing the backup): its
   * profile's hold commands (Bedrock `save hold`, or the `off` commands), their replies answered.
   * The hold belongs to this connection: when it closes without `resume`, the supervisor sends the
   * resume commands itself.
   */
  | { readonly t: 'req'; readonly id: number; readonly op: 'hold'; readonly holder: ProcessRef }
  /** The resume commands (Bedrock `save resume`, or the `on` commands), retried until acknowledged; the hold record is gone once they are. */
  | { readonly t: 'req'; readonly id: number; readonly op: 'resume' }
  /** direct mode: this connection owns the server, which is stopped when the connection ends. */
  | { readonly t: 'req'; readonly id: number; readonly op: 'own' }

export type SupervisorMessage =
  | { readonly t: 'res'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'res'; readonly id: number; readonly ok: false; readonly error: WireError }
  | { readonly t: 'line'; readonly line: string }
  | { readonly t: 'status'; readonly entry: StatusEntry }
  /** A new resource sample of the game (sampling on: `metrics.enabled`). */
  | { readonly t: 'sample'; readonly sample: ServerSample }

/** What a supervisor answers once it serves its run (or why it cannot). */
export type Announcement =
  | { readonly ok: true; readonly adopted: boolean; readonly status: ServerStatus }
  | { readonly ok: false; readonly error: WireError }

/** The environment a game gets: these from its starter's (sent with its request), then the profile's, then the server's own. */
export const PASSED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SHELL']

/**
 * The host agent's socket protocol (`<data dir>/agent/agent.sock`, JSON lines, answered like the
 * supervisor's): supervise a run directory, or say what it supervises.
 */
export type AgentRequest =
  | {
      readonly t: 'req'
      readonly id: number
      readonly op: 'supervise'
      /** The run directory, `<data dir>/servers/<name>`, of the agent's own data directory. */
      readonly dir: string
      /** `run`: adopt its game if it still runs, else start it; `adopt`: only adopt. */
      readonly purpose: 'run' | 'adopt'
      /** The starter's environment (only the variables a game is passed). */
      readonly env: Readonly<Record<string, string>>
    }
  | { readonly t: 'req'; readonly id: number; readonly op: 'status' }

export type AgentMessage = Extract<SupervisorMessage, { t: 'res' }>

/** What the agent says of itself (`status`). */
export interface AgentStatus {
  readonly pid: number
  readonly startedAt: string
  /** Node's version, and the agent's code (the package's version). */
  readonly node: string
  readonly version: string
  /** Its own resident memory, in bytes (the games' are their own). */
  readonly rss: number
  readonly runs: readonly { readonly server: string; readonly status: ServerStatus }[]
}

/** The one line a new agent writes on fd 3: it serves (or another one already does), or why it cannot. */
export type AgentAnnouncement = { readonly ok: true } | { readonly ok: false; readonly error: WireError }
