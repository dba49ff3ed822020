import type { Readable } from 'node:stream'
import {
  type BusScope,
  type Chain,
  currentContext,
  type Logger,
  reasonOf,
  runInContext,
  SmError,
} from '../../../kernel'
import type { TaskContext } from '../../tasks/contract'
import type { ForwardedRequest, ForwardedResponse, PageData } from '../../web/contract'
import type { CallOptions } from '../guarded-call'
import { bindHookCalls } from '../hook-binding'
import { type PluginContributions, type RunningPlugin, recordSecrets } from '../loaded-plugin'
import { createPluginGateway, declaredSecretKeys, type PluginGateway, scopeLink } from '../plugin-gateway'
import type { PluginStatics } from '../plugin-module'
import { ThreadApiAnswers } from './api-answers'
import { Channel } from './channel'
import { type BatchSide, batchOf, type HookMember } from './hook-batch'
import { markDisplacement, type Place, type Tenant } from './plugin-host'
import { type Ask, type AskCall, type Call, type Down, THREAD_LOG_LEVELS, type ThreadData, type Up } from './protocol'
import { apiNames, type ThreadOptions } from './thread-options'
import { fromThreadError } from './wire'

/** The start under way (its import, then its constructor): what it is, and how it fails. */
interface Starting {
  readonly what: string
  readonly reject: (error: unknown) => void
  timer?: NodeJS.Timeout
}

/** What a call to the thread is, kept while it waits. */
interface CallMeta {
  readonly what: string
  /** A route call's page data, when the page it renders asks. */
  readonly page?: () => Promise<PageData>
}

/** No timer of the caller's own: the thread's call has the timeout. */
const NO_TIMEOUT = 0
/** The longest an unloaded plugin's thread waits for what it asked the manager before it ends. */
const DRAIN_MS = 10 * 60_000
/** How many calls' chains a thread's later asks may still name. */
const MAX_CHAINS = 10_000
const LOG_LEVELS: ReadonlySet<string> = new Set(THREAD_LOG_LEVELS)
/** How long a thread has to answer a ping once a call of it timed out, before it counts as stuck. */
const PING_MS = 1000

/**
 * A plugin running in a plugin thread (its own, or one it shares: plugin-host.ts), as the
 * manager sees it: its hooks and listeners are registered on its bus scope here and run there;
 * what its `this.api` asks comes here as messages and runs as `plugin:<name>`, in the causal
 * chain of the call it came from. A call that does not return within the hook timeout is cut
 * off; a thread held by a loop, running out of memory, `process.exit` or an uncaught error end
 * the thread: the plugin at fault takes the strike, the others in it start again.
 */
export class ThreadedPlugin implements RunningPlugin, Tenant {
  readonly threaded = true
  readonly name: string
  readonly definition: PluginStatics
  hooks: readonly string[] = []
  readonly #options: ThreadOptions
  readonly #scope: BusScope
  readonly #logger: Logger
  /** Its place in a plugin thread: its own port there. */
  readonly #place: Place
  /** Calls, their results and streamed answers, and pings, both ways (channel.ts). */
  readonly #channel: Channel<Call, AskCall, Down, Up, CallMeta>
  /** The start under way (its import, then its constructor): what it is, and how it fails. */
  #starting: Starting | undefined
  /** Its `this.api`, run here for the thread (the same gateway a plugin in the manager's thread has). */
  readonly #gateway: PluginGateway
  /** What the thread asks of `this.api`, answered here (and the functions it was answered with). */
  readonly #answers: ThreadApiAnswers
  readonly #tasks = new Map<number, TaskContext>()
  /** Seconds until the manager starts the plugin again, once it ended by a fault. */
  #retryAfter: number | undefined
  /** Why the thread ended (a fault), or 'unloaded'; undefined while it runs. */
  #ended: SmError | 'unloaded' | undefined
  #onReady: ((message: Extract<Up, { t: 'ready' }>) => void) | undefined
  #onImported: (() => void) | undefined
  /** What the thread said once it made the instance: its hook methods, and warnings. */
  #ready: Extract<Up, { t: 'ready' }> | undefined
  #probing = false
  /** The causal chains of its latest calls, by call id (what they started unawaited still carries them). */
  readonly #chains = new Map<number, Chain>()
  #onDrained: (() => void) | undefined
  /** Unloaded, it waits only for what it asked the manager: it no longer keeps the process alive. */
  #draining = false
  /**
   * How its hooks, listeners and `this.api` calls are made here: no timer of the gateway's (its
   * thread's own call timeout bounds them), failures told to the manager.
   */
  readonly #callOptions: CallOptions
  /** What its thread's batch (hook-batch.ts) needs of it. */
  readonly batchSide: BatchSide
  /** The event of the batch its hook is in, while the batch runs (what it was doing, for a fault). */
  #batching: string | undefined
  /** A call that was cut off at its timeout, until its thread is found free again (what held it, for a fault). */
  #cutOff: string | undefined

  private constructor(definition: PluginStatics, options: ThreadOptions, ownSecrets: readonly string[]) {
    this.name = definition.candidate.name
    this.definition = definition
    this.#options = options
    this.#scope = options.scope.child(`plugin:${this.name}`)
    this.#logger = options.logger.child(`plugin:${this.name}`)
    // Its listeners are bounded by the thread's own call timeout (which ends the thread), not the gateway's.
    const callOptions: CallOptions = {
      plugin: this.name,
      logger: this.#logger,
      timeoutMs: NO_TIMEOUT,
      onFailure: (event, error) => options.onHookFailure(this.name, event, error),
    }
    this.#callOptions = callOptions
    this.#gateway = createPluginGateway(this.name, scopeLink(this.#scope, callOptions, options.runTask), {
      logger: this.#logger,
      ownSecrets,
      commands: this.#scope.catalogue.commands(),
    })
    this.#answers = new ThreadApiAnswers(this.name, this.#gateway.api)
    const data: ThreadData = {
      plugin: this.name,
      candidate: definition.candidate,
      cacheDir: options.cacheDir,
      logLevel: options.logLevel,
      // A schema cannot be posted: the thread gets each action without its payload's.
      actions: this.#scope.catalogue.actions().map(({ owner, name, declaration: { payload: _, ...declaration } }) => ({
        owner,
        name,
        declaration,
      })),
      api: apiNames(this.#gateway.operations),
    }
    const limits = {
      memoryMb: options.maxMemoryMb,
      externalMb: options.maxExternalMb,
      hookMs: options.timeoutMs,
      importMs: options.importMs,
    }
    // Plugins in one thread share its memory: one that keeps secrets of its own keeps them in a thread of its own.
    const own = options.ownThread || ownSecrets.length > 0
    this.#place = options.hosts.host(this.name, limits, own).seat(this, data)
    const port = this.#place.port
    const plugin = this
    this.batchSide = {
      slot: this.#place.slot,
      hookOptions: callOptions,
      timeoutMs: options.timeoutMs,
      get ended() {
        return plugin.#ended
      },
      batching: (event) => {
        this.#batching = event
      },
      call: (call, what, timeoutMs) => this.#call(call, what, timeoutMs),
      successor: () => options.successor(this.name),
    }
    this.#channel = new Channel<Call, AskCall, Down, Up, CallMeta>({
      post: (message) => port.postMessage(message),
      worker: false,
      serve: ({ in: within, ask }) => this.#answer(within, ask),
      onMessage: (message) => this.#take(message),
      // The thread is the plugin's own code, which can post anything: a message this cannot take
      // ends that thread (never the manager).
      onBadMessage: (error) =>
        this.#fault(
          new SmError('SM_ERR_PLUGIN_CRASHED', {
            plugin: this.name,
            where: this.where(),
            reason: `it posted a message the manager cannot take (${reasonOf(error)})`,
          }),
        ),
      // A value that cannot be cloned fails that one call, said so; the thread is fine.
      unsendableCall: ({ what }, error) =>
        new SmError('SM_ERR_PLUGIN_CRASHED', { plugin: this.name, where: what, reason: reasonOf(error) }),
    })
    port.on('message', (message: unknown) => this.#channel.receive(message))
  }

  /**
   * Starts the plugin's thread: it imports the plugin and makes its instance (under the hook
   * timeout), then its hooks are bound here and its onLoad runs there. All or nothing: a failure
   * ends the thread and leaves nothing registered.
   */
  static async load(definition: PluginStatics, options: ThreadOptions): Promise<ThreadedPlugin> {
    const plugin = await ThreadedPlugin.start(definition, options)
    await plugin.activate()
    return plugin
  }

  /**
   * Starts the plugin's thread: it imports the plugin (bounded by plugins.import_timeout_s: a module's top-level
   * loop ends it) and makes its instance (under the hook timeout). Several start side by side;
   * `activate` then binds them in load order. A failure ends the thread and throws.
   */
  static async start(definition: PluginStatics, options: ThreadOptions): Promise<ThreadedPlugin> {
    const name = definition.candidate.name
    const ownSecrets = declaredSecretKeys(name, definition.secretSettings)
    // Before any of its code runs: what it stores there is hidden from its first write.
    await recordSecrets(name, ownSecrets, options.scope)
    const plugin = new ThreadedPlugin(definition, options, ownSecrets)
    try {
      plugin.#ready = await plugin.#constructed()
      return plugin
    } catch (error) {
      // Its import or constructor timed out: a thread that answers no ping holds its loop there.
      if (error instanceof SmError && error.code === 'SM_ERR_PLUGIN_LOAD_TIMEOUT' && !plugin.#ended)
        await plugin.#stuckYet(Number(error.params.ms), String(error.params.phase))
      await plugin.#end('unloaded')
      throw error
    }
  }

  /** Binds the started plugin's hooks, then runs its onLoad; all or nothing. */
  async activate(): Promise<void> {
    const ready = this.#ready as Extract<Up, { t: 'ready' }>
    // Its thread failed since it started (a constructor's timer, process.exit): that is why.
    if (this.#ended)
      throw this.#ended === 'unloaded'
        ? new SmError('SM_ERR_PLUGIN_REVOKED', { plugin: this.name, call: 'onLoad' })
        : this.#ended
    try {
      for (const warning of ready.warnings) this.#logger.warn(warning)
      const batch = batchOf(this.#place.host)
      this.hooks = bindHookCalls(
        this.#scope,
        this.#callOptions,
        { methods: ready.methods, any: ready.any },
        (hook) => {
          const what = hook.any ? `onAnyEvent (${hook.event})` : hook.event
          return (payload) => this.#call({ kind: 'hook', hook, payload }, what)
        },
        (hook) => ({ batch, member: { plugin: this, hook } satisfies HookMember }),
      )
      const failure = await this.call('onLoad')
      if (failure) throw failure
    } catch (error) {
      await this.#end('unloaded')
      throw error
    }
  }

  /** Ends a started plugin that is not going to be activated (what it requires did not load). */
  async discard(): Promise<void> {
    await this.#end('unloaded')
  }

  /** Resolves once the thread has imported the plugin and made its instance. */
  #constructed(): Promise<Extract<Up, { t: 'ready' }>> {
    return new Promise((resolve, reject) => {
      const phase = (what: string, ms: number, timedOut: () => SmError) => {
        clearTimeout(this.#starting?.timer)
        // Its import failing, or the thread ending before it is ready, settles the start.
        const starting: Starting = { what, reject }
        starting.timer = setTimeout(() => {
          this.#starting = undefined
          reject(timedOut())
        }, ms)
        this.#starting = starting
      }
      phase(
        'its import',
        this.#options.importMs,
        () =>
          new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', {
            plugin: this.name,
            phase: 'its import (its top-level code)',
            ms: this.#options.importMs,
            setting: 'plugins.import_timeout_s',
          }),
      )
      this.#onImported = () => {
        const ms = this.#options.timeoutMs
        phase(
          'its constructor',
          ms,
          () => new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', { plugin: this.name, phase: 'its constructor', ms }),
        )
      }
      this.#onReady = (message) => {
        clearTimeout(this.#starting?.timer)
        this.#starting = undefined
        resolve(message)
      }
    })
  }

  /** The start failed (it ended, its import or constructor threw): the start fails with `error`. */
  #startFailed(error: unknown): void {
    const starting = this.#starting
    this.#starting = undefined
    clearTimeout(starting?.timer)
    starting?.reject(error)
  }

  /** Registrations (hooks and listeners) the plugin holds on the bus. */
  get listeners(): number {
    return this.#scope.registrations
  }

  /** Its contributions, described in its thread (routers as descriptions). */
  contributions(): Promise<PluginContributions> {
    return this.#call({ kind: 'describe' }, 'its extension methods') as Promise<PluginContributions>
  }

  /** Runs a lifecycle hook in the thread under the hook timeout; resolves to its failure, if any. */
  async call(hook: 'onLoad' | 'onUnload' | 'onManagerStartup'): Promise<SmError | undefined> {
    try {
      await this.#call({ kind: 'lifecycle', hook }, hook)
      return undefined
    } catch (error) {
      const failure =
        error instanceof SmError && error.code === 'SM_ERR_PLUGIN_TIMEOUT'
          ? new SmError('SM_ERR_PLUGIN_LOAD_TIMEOUT', { plugin: this.name, phase: hook, ms: this.#options.timeoutMs })
          : error instanceof SmError && error.code.startsWith('SM_ERR_PLUGIN_')
            ? error
            : new SmError(
                'SM_ERR_PLUGIN_LOAD_FAILED',
                { plugin: this.name, phase: hook, reason: reasonOf(error) },
                { cause: error },
              )
      // A fault of the thread was logged when it ended.
      if (failure !== this.#ended) this.#logger.error(failure.message, { code: failure.code })
      return failure
    }
  }

  /** Calls `onUnload`, then ends the thread and releases everything it registered. */
  async unload(): Promise<SmError | undefined> {
    const failure = this.#ended ? undefined : await this.call('onUnload')
    // What it asked the manager before it was unloaded is still answered (as in the manager's own
    // thread, where its awaits carried on): its this.api is revoked, and the thread ends once
    // those answers are in (it keeps no process alive meanwhile).
    await this.#end('unloaded', DRAIN_MS)
    return failure
  }

  /**
   * Hands a web request to the plugin's routes in its thread (the route's guard has passed, its
   * body is read): the answer, with its body's stream when it is streamed. While the plugin is
   * being restarted after a fault: SM_ERR_PLUGIN_RESTARTING (503, Retry-After).
   */
  async forward(
    request: ForwardedRequest,
    page: () => Promise<PageData>,
  ): Promise<{ response: ForwardedResponse; stream?: Readable }> {
    const what = `the route ${request.method} ${request.url.split('?')[0]}`
    const { value, stream } = (await this.#call({ kind: 'route', request }, what, this.#options.timeoutMs, page)) as {
      value: ForwardedResponse
      stream?: Readable
    }
    return { response: value, stream }
  }

  /** Says the plugin comes back in `seconds` (the manager's backoff): requests meanwhile are told so. */
  restarting(seconds: number): void {
    this.#retryAfter = seconds
  }

  /** Sends a call to the thread; a call that does not return in time ends the thread. */
  #call(
    call: Call,
    what: string,
    timeoutMs = this.#options.timeoutMs,
    page?: () => Promise<PageData>,
  ): Promise<unknown> {
    if (this.#ended) {
      if (this.#ended === 'unloaded')
        return Promise.reject(new SmError('SM_ERR_PLUGIN_REVOKED', { plugin: this.name, call: what }))
      if (this.#retryAfter !== undefined)
        return Promise.reject(new SmError('SM_ERR_PLUGIN_RESTARTING', { plugin: this.name, seconds: this.#retryAfter }))
      return Promise.reject(this.#ended)
    }
    const id = this.#channel.nextId
    const chain = currentContext().chain
    if (chain) this.#chains.set(id, chain)
    // By id, never the Map's oldest key: finding that skips every key deleted before it, which
    // cost trigger_event 8 us of the manager's thread per call once 10,000 calls had been made.
    this.#chains.delete(id - MAX_CHAINS)
    return this.#channel.call(call, {
      meta: { what, page },
      timeoutMs,
      streamed: page !== undefined,
      timedOut: () => {
        // Whether the thread is stuck (a loop) or only waiting (on a slow server start) is asked next.
        this.#cutOff = what
        this.#probe(what, timeoutMs)
        // Cut off, as in the manager's thread (a hook or listener as a listener timeout).
        return call.kind === 'hook' || call.kind === 'listener'
          ? new SmError('SM_ERR_KERNEL_LISTENER_TIMEOUT', {
              owner: `plugin:${this.name}`,
              event: call.kind === 'hook' ? call.hook.event : what,
              ms: timeoutMs,
            })
          : new SmError('SM_ERR_PLUGIN_TIMEOUT', { plugin: this.name, where: what, ms: timeoutMs })
      },
    })
  }

  /**
   * After a call timed out: a thread that does not answer a ping within PING_MS is stuck (a
   * synchronous loop) and is ended, a fault; one that answers was only waiting, and lives on.
   */
  #probe(what: string, ms: number): void {
    if (this.#ended || this.#probing) return
    this.#probing = true
    void this.#stuckYet(ms, what).then((stuck) => {
      this.#probing = false
      if (stuck) return
      this.#cutOff = undefined
      this.#logger.warn(`${what} did not return within ${ms} ms and was cut off; its thread answers, so it lives on`)
    })
  }

  /**
   * Whether its thread holds its loop (asked once `what` ran past `ms`): it answers no ping, and
   * entered no plugin code meanwhile (one busy with other plugins' hooks is not held). A held
   * thread is ended, a fault.
   */
  async #stuckYet(ms: number, what: string): Promise<boolean> {
    const host = this.#place.host
    const progress = host.progress()
    if ((await this.#channel.ping(PING_MS)) || host.progress() !== progress) return false
    host.stuck(this, ms, what)
    return true
  }

  /** One of the thread's own messages (not the channel's). */
  #take(message: Up): void {
    switch (message?.t) {
      case 'imported':
        this.#onImported?.()
        return
      case 'ready':
        this.#onReady?.(message)
        return
      case 'failed':
        this.#startFailed(fromThreadError(message.error ?? { message: 'no error given' }))
        return
      case 'drained':
        this.#onDrained?.()
        return
      case 'progress':
        this.#tasks.get(message.task)?.progress(message.percent, message.message)
        return
      case 'log': {
        if (!LOG_LEVELS.has(message.level)) throw new TypeError(`a log line at the level '${String(message.level)}'`)
        const logger = typeof message.name === 'string' ? this.#logger.child(message.name) : this.#logger
        logger[message.level](String(message.message), message.fields)
        return
      }
    }
  }

  /** Does what the plugin's `this.api` asked, as the plugin, in the causal chain of the call it came from. */
  #answer(within: number | undefined, ask: Ask): Promise<unknown> {
    // The chain of the call it came from, also after that call returned (work it started and did not await).
    const chain = within === undefined ? undefined : this.#chains.get(within)
    const work = async (): Promise<unknown> => {
      switch (ask.op) {
        case 'api':
          return this.#answers.operation(ask.name, ask.args, (arg, what) => this.#fromThread(arg, what))
        case 'callback':
          return this.#answers.callback(ask.fn, ask.args)
        case 'page': {
          const page = within === undefined ? undefined : this.#channel.meta(within)?.page
          if (!page) throw new Error('a page is rendered only while its route runs')
          return page()
        }
        default:
          throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', {
            plugin: this.name,
            what: 'ask the manager for what this.api does not do',
          })
      }
    }
    return runInContext({ actor: `plugin:${this.name}`, chain }, work)
  }

  /**
   * An argument from the thread: a listener or a task's work it kept there becomes a function
   * here that calls it there (a listener under the hook timeout, which ends the thread; a task's
   * work without one, its progress and cancel carried across).
   */
  #fromThread(arg: unknown, what: string): unknown {
    if (arg === null || typeof arg !== 'object') return arg
    const { __listener: listener, __task: task } = arg as { __listener?: unknown; __task?: unknown }
    if (typeof listener === 'number')
      return (payload: unknown, meta: { sender: string }) =>
        this.#call({ kind: 'listener', listener, payload, sender: meta.sender }, what)
    if (typeof task === 'number')
      return async (ctx: TaskContext) => {
        this.#tasks.set(task, ctx)
        const abort = () => this.#channel.send({ t: 'abort', task })
        ctx.signal.addEventListener('abort', abort, { once: true })
        try {
          return await this.#call({ kind: 'task', task, taskId: ctx.id }, `the task '${what}'`, 0)
        } finally {
          ctx.signal.removeEventListener('abort', abort)
          this.#tasks.delete(task)
        }
      }
    return arg
  }

  /** Whether it keeps the process alive (not once it is only draining). */
  get holds(): boolean {
    return !this.#draining
  }

  /** Its thread ended by this plugin's fault. */
  faulted(error: SmError, said = ''): void {
    this.#onDrained?.()
    this.#fault(error, said)
  }

  /** Its thread ended by another plugin's fault: it ends, and the manager starts it again at once. */
  displaced(by: string): void {
    this.#onDrained?.()
    if (this.#ended) return
    this.#retryAfter = 1
    this.#logger.warn(`plugin '${this.name}' is started again: '${by}', in the same thread, ended that thread`)
    const error = new SmError('SM_ERR_PLUGIN_RESTARTING', { plugin: this.name, seconds: 1 })
    markDisplacement(error)
    void this.#end(error).then(() => this.#options.onDisplaced(this))
  }

  /** What the thread was running, for a fault's message: the latest call still waiting. */
  where(): string {
    return (
      this.#channel.waiting().at(-1)?.what ??
      this.#batching ??
      this.#cutOff ??
      this.#starting?.what ??
      'its own code (a timer or a promise, outside any hook)'
    )
  }

  #fault(error: SmError, said = ''): void {
    if (this.#ended) return
    // Until the manager says when it starts the plugin again, a request hears "soon".
    this.#retryAfter = 1
    this.#logger.error(`${error.message}${said}`, { code: error.code })
    void this.#end(error).then(() => this.#options.onFault(this, error))
  }

  /**
   * Ends the thread (once): fails its waiting calls with `why`, releases its registrations;
   * with `drainMs`, first lets what the thread still waits for from the manager come in (at most
   * that long), with its this.api revoked.
   */
  async #end(why: SmError | 'unloaded', drainMs = 0): Promise<void> {
    if (this.#ended) return
    this.#ended = why
    const error = why === 'unloaded' ? new SmError('SM_ERR_PLUGIN_REVOKED', { plugin: this.name, call: 'a call' }) : why
    this.#startFailed(error)
    // A thread that has ended already has nothing left to wait for.
    const draining = drainMs > 0 && this.#place.host.open
    // Unloaded, the thread is still answered until it has what it waited for.
    this.#channel.close(error, draining)
    this.#gateway.revoke()
    this.#answers.clear()
    this.#scope.dispose()
    if (draining) {
      this.#draining = true
      this.#place.host.hold()
      void this.#drain(drainMs)
      return
    }
    await this.#place.leave()
  }

  async #drain(drainMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      new Promise<void>((resolve) => {
        this.#onDrained = resolve
        this.#channel.send({ t: 'unload' })
      }),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs)
        timer.unref()
      }),
    ])
    clearTimeout(timer)
    this.#channel.stopAnswering()
    await this.#place.leave()
  }
}
