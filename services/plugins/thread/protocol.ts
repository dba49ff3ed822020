import type { MessagePort } from 'node:worker_threads'
import type { ActionSummary, BatchOrder, LogFields } from '../../../kernel'
import type { WireError } from '../../../kernel/errors'
import type { ForwardedRequest } from '../../web/contract'
import type { Candidate } from '../discovery'
import type { HookCall } from '../hook-binding'

/**
 * The messages between the manager and a plugin's thread (docs/architecture.md, "Plugins in
 * threads"). Every one is plain data (the structured clone of a worker's MessagePort): the
 * plugin's instance, its listeners and its tasks' work stay in its thread and are named by ids.
 */

/**
 * An action as a thread learns it: its hooks' names, identity and alias. Its payload's schema
 * (code, which a message cannot carry) stays in the manager, which checks every hook's payload
 * before a thread's hook sees it.
 */
export type ThreadAction = ActionSummary

/** What a plugin thread (host-thread.ts) is started with (workerData). */
export interface HostData {
  readonly host: true
  /** Where the thread reports its memory outside the heap (memory-watch.ts). */
  readonly memory: Int32Array
  /** Which plugin to blame when the thread ends, by its slot (from 1; 0: none), and how it is doing: the indexes of BLAME. */
  readonly blame: Int32Array
}

/** The slots of a plugin thread's blame array (host-thread.ts). */
export const BLAME = {
  /** The plugin whose code the thread last entered. */
  current: 0,
  /** The plugin that called process.exit. */
  exited: 1,
  /** The plugin an uncaught error came from. */
  crashed: 2,
  /** How many times plugin code was entered (a count). */
  entries: 3,
  /** The thread's beat while its loop is free (a count). */
  beat: 4,
  /** How many plugins are being imported and constructed (their import has its own, longer limit). */
  importing: 5,
} as const

/** How many slots a blame array has. */
export const BLAME_SLOTS = 6

/** Manager → a plugin thread, on its own port: run this plugin (on the port it is given), or forget it. */
export type HostDown =
  | { readonly t: 'seat'; readonly slot: number; readonly port: MessagePort; readonly data: ThreadData }
  | { readonly t: 'drop'; readonly slot: number }

/** What one plugin in a plugin thread is seated with. */
export interface ThreadData {
  readonly plugin: string
  readonly candidate: Candidate
  /** jiti's transpile cache (false: none). */
  readonly cacheDir: string | false
  /** The log level the manager logs at, so a thread does not post what would be dropped. */
  readonly logLevel: string
  /** The actions the manager's services declare (their hooks are the plugin's to override). */
  readonly actions: readonly ThreadAction[]
  /** The names of `this.api` (the manager's operations table, aliases included). */
  readonly api: readonly ApiName[]
}

/**
 * What an inspector thread is started with: it imports the plugin modules it is sent (their
 * top-level code runs there, not in the manager) and answers what each says of itself.
 */
export interface InspectorData {
  readonly inspect: true
  readonly cacheDir: string | false
}

/** Manager → inspector: import this candidate (a call of the channel, answered by its statics). */
export interface Inspect {
  readonly candidate: Candidate
}

/** What the manager asks of the plugin's code: a call of the channel (channel.ts), answered by one result. */
export type Call =
  | { readonly kind: 'hook'; readonly hook: HookCall; readonly payload: unknown }
  /**
   * Hooks of several plugins in this thread (their slots, in the bus's order), each under
   * `timeoutMs`, in `order` (the bus's BatchOrder). Answered by a BatchAnswer per hook it reached.
   */
  | {
      readonly kind: 'batch'
      readonly calls: readonly { readonly slot: number; readonly hook: HookCall }[]
      readonly payload: unknown
      readonly order: BatchOrder
      readonly timeoutMs: number
    }
  | { readonly kind: 'listener'; readonly listener: number; readonly payload: unknown; readonly sender: string }
  | { readonly kind: 'lifecycle'; readonly hook: 'onLoad' | 'onUnload' | 'onManagerStartup' }
  | { readonly kind: 'task'; readonly task: number; readonly taskId: string }
  | { readonly kind: 'describe' }
  | { readonly kind: 'route'; readonly request: ForwardedRequest }

/** What one hook of a batch call did. */
export type BatchAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ThreadError }

/** One name of `this.api` (an operation or an alias), and which function argument it keeps in the thread. */
export interface ApiName {
  readonly name: string
  readonly takes?: 'listener' | 'task'
}

/**
 * What the plugin's code asks of the manager; a call of the channel, answered by one result. `api`: an
 * operation of `this.api`, its function argument (a listener, a task's work) sent as
 * `{ __listener: id }` or `{ __task: id }`; a function it answers with comes back as `{ __fn: id }`,
 * for `callback`.
 */
export type Ask =
  | { readonly op: 'api'; readonly name: string; readonly args: readonly unknown[] }
  | { readonly op: 'callback'; readonly fn: number; readonly args: readonly unknown[] }
  /** What a page rendered for the route call `in` sees of the manager (the user, the sidebar, the mounts). */
  | { readonly op: 'page' }

/** A call of the thread's to the manager: what its `this.api` asks, and (`in`) the call it was running then, if any (its causal chain). */
export interface AskCall {
  readonly in: number | undefined
  readonly ask: Ask
}

/** Manager → thread, beside the channel's own messages (calls, results, streams, pings). */
export type Down =
  | { readonly t: 'abort'; readonly task: number }
  /** The plugin is unloaded: revoke its this.api, and say `drained` once nothing it asked is still waiting. */
  | { readonly t: 'unload' }

/** The levels a thread's log lines may have (what the manager accepts from it). */
export const THREAD_LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const

/** Thread → manager, beside the channel's own messages. */
export type Up =
  /** The plugin's module is imported; its constructor runs next. */
  | { readonly t: 'imported' }
  /** Constructed: the hook methods it has (and onAnyEvent), and what looks like a hook but is not one. */
  | {
      readonly t: 'ready'
      readonly methods: readonly string[]
      readonly any: boolean
      readonly warnings: readonly string[]
    }
  /** Its import or its constructor failed: why (the thread ends). */
  | { readonly t: 'failed'; readonly error: ThreadError }
  | { readonly t: 'drained' }
  | { readonly t: 'progress'; readonly task: number; readonly percent: number | undefined; readonly message?: string }
  | {
      readonly t: 'log'
      /** The child logger's name under the plugin's (`this.logger.child('x')`), if any. */
      readonly name?: string
      readonly level: (typeof THREAD_LOG_LEVELS)[number]
      readonly message: string
      readonly fields?: LogFields
    }

/** An error crossing the boundary: a coded one as it is, anything else by its message and stack. */
export type ThreadError =
  | { readonly coded: WireError }
  /** `status`: an HTTP error's (Koa's ctx.throw(404)), kept so the web server answers with it. */
  | { readonly message: string; readonly stack?: string; readonly status?: number }
