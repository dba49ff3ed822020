import { PassThrough, type Readable } from 'node:stream'
import type { Worker } from 'node:worker_threads'
import {
  actionCatalogue,
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
import type { Operation } from '../api-operation'
import { API_TABLE } from '../api-table'
import type { CallOptions } from '../guarded-call'
import { bindHookCalls } from '../hook-binding'
import { type LoadOptions, type PluginContributions, type RunningPlugin, recordSecrets } from '../loaded-plugin'
import { createPluginGateway, declaredSecretKeys, type PluginGateway, scopeLink } from '../plugin-gateway'
import type { PluginStatics } from '../plugin-module'
import { memoryReport, watchMemory } from './memory-watch'
import { type Batch, outbox } from './outbox'
import { type ApiName, type Ask, type Call, type Down, THREAD_LOG_LEVELS, type ThreadData, type Up } from './protocol'
import { fromThreadError, toThreadError } from './wire'
import { startPluginWorker, workerFault } from './worker'

export interface ThreadOptions extends LoadOptions {
  /** The thread's entry file (the composition root `plugin-thread.js`). */
  readonly entry: string
  /** The plugin's heap limit (V8's old generation), from plugins.max_memory_mb. */
  readonly maxMemoryMb: number
  /** What it may hold outside its heap (`Buffer`s), from plugins.max_external_mb. */
  readonly maxExternalMb: number
  /** How long its module may take to import (plugins.import_timeout_s). */
  readonly importMs: number
  /** What the manager logs at, so the thread does not post lines that would be dropped. */
  readonly logLevel: string
  /** jiti's transpile cache, shared with the manager's importer (false: none). */
  readonly cacheDir: string | false
  /**
   * Told once when the thread ends by a fault (a timeout, out of memory, process.exit, an
   * uncaught error): by then its hooks and listeners are gone and its calls have failed.
   */
  readonly onFault: (plugin: RunningPlugin, fault: SmError) => void
}

interface Pending {
  readonly what: string
  readonly chain: Chain | undefined
  /** A route call's page data, when the page it renders asks. */
  readonly page?: () => Promise<PageData>
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
  timer?: NodeJS.Timeout
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
 * A plugin running in a worker thread of its own, as the manager sees it: its hooks and
 * listeners are registered on its bus scope here and run there; what its `this.api` asks comes
 * here as messages and runs as `plugin:<name>`, in the causal chain of the call it came from.
 * A call that does not return within the hook timeout (a `while (true) {}` included), running
 * out of memory, `process.exit` or an uncaught error end the thread, and only it.
 */
export class ThreadedPlugin implements RunningPlugin {
  readonly threaded = true
  readonly name: string
  readonly definition: PluginStatics
  hooks: readonly string[] = []
  readonly #options: ThreadOptions
  readonly #scope: BusScope
  readonly #logger: Logger
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  /** Its `this.api`, run here for the thread (the same gateway a plugin in the manager's thread has). */
  readonly #gateway: PluginGateway
  /** Functions `this.api` answered the thread with (stop listening), by id. */
  readonly #callbacks = new Map<number, (...args: unknown[]) => unknown>()
  readonly #tasks = new Map<number, TaskContext>()
  /** The bodies of streamed route answers, by call id, with the bytes not yet acknowledged to the thread. */
  readonly #streams = new Map<number, { readonly stream: PassThrough; owed: number }>()
  /** Seconds until the manager starts the plugin again, once it ended by a fault. */
  #retryAfter: number | undefined
  #nextId = 1
  /** Why the thread ended (a fault), or 'unloaded'; undefined while it runs. */
  #ended: SmError | 'unloaded' | undefined
  #onReady: ((message: Extract<Up, { t: 'ready' }>) => void) | undefined
  #onImported: (() => void) | undefined
  /** What the thread said once it made the instance: its hook methods, and warnings. */
  #ready: Extract<Up, { t: 'ready' }> | undefined
  #probing = false
  /** The causal chains of its latest calls, by call id (what they started unawaited still carries them). */
  readonly #chains = new Map<number, Chain>()
  #onPong: (() => void) | undefined
  /** Unloaded, the thread is still answered until it has what it waited for. */
  #draining = false
  #onDrained: (() => void) | undefined
  /** Stops watching its memory outside the heap (memory-watch.ts). */
  readonly #unwatch: () => void

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
    this.#gateway = createPluginGateway(this.name, scopeLink(this.#scope, callOptions, options.runTask), {
      logger: this.#logger,
      ownSecrets,
    })
    const report = memoryReport()
    const data: ThreadData = {
      memory: report,
      plugin: this.name,
      candidate: definition.candidate,
      cacheDir: options.cacheDir,
      logLevel: options.logLevel,
      actions: actionCatalogue().map(({ owner, name, declaration: { payload: _, ...declaration } }) => ({
        owner,
        name,
        declaration,
      })),
      api: apiNames(),
    }
    this.#worker = startPluginWorker(options.entry, `plugin:${this.name}`, data, options.maxMemoryMb)
    this.#worker.on('message', (message: Up | Batch<Up>) => this.#receive(message))
    this.#worker.on('error', (error: Error & { code?: string }) =>
      this.#fault(workerFault(error, this.name, this.#where(), options.maxMemoryMb)),
    )
    this.#worker.on('exit', (code) => {
      if (this.#ended) return
      this.#fault(new SmError('SM_ERR_PLUGIN_EXITED', { plugin: this.name, where: this.#where(), code }))
    })
    this.#unwatch = watchMemory({
      report,
      externalMb: options.maxExternalMb,
      heapMb: options.maxMemoryMb,
      outgrew: async (mb) => {
        const exited = new Promise((resolve) => this.#worker.once('exit', resolve))
        const where = this.#where()
        this.#fault(
          new SmError('SM_ERR_PLUGIN_EXTERNAL_MEMORY', { plugin: this.name, where, mb, limit: options.maxExternalMb }),
        )
        if (this.#worker.threadId >= 0) await exited
      },
    })
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
      const options: CallOptions = {
        plugin: this.name,
        logger: this.#logger,
        timeoutMs: NO_TIMEOUT,
        onFailure: (event, error) => this.#options.onHookFailure(this.name, event, error),
      }
      this.hooks = bindHookCalls(this.#scope, options, { methods: ready.methods, any: ready.any }, (hook) => {
        const what = hook.any ? `onAnyEvent (${hook.event})` : hook.event
        return (payload) => this.#call({ kind: 'hook', hook, payload }, what)
      })
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
        clearTimeout(this.#pending.get(0)?.timer)
        // Its import failing, or the thread ending before it is ready, settles this call (id 0).
        const pending: Pending = { what, chain: undefined, resolve: () => {}, reject }
        pending.timer = setTimeout(() => {
          this.#pending.delete(0)
          reject(timedOut())
        }, ms)
        this.#pending.set(0, pending)
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
        this.#settle(0)
        resolve(message)
      }
    })
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
    return (await this.#call({ kind: 'route', request }, what, this.#options.timeoutMs, page)) as {
      response: ForwardedResponse
      stream?: Readable
    }
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
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      const chain = currentContext().chain
      const pending: Pending = { what, chain, page, resolve, reject }
      if (chain) this.#chains.set(id, chain)
      // By id, never the Map's oldest key: finding that skips every key deleted before it, which
      // cost trigger_event 8 us of the manager's thread per call once 10,000 calls had been made.
      this.#chains.delete(id - MAX_CHAINS)
      if (timeoutMs > 0)
        pending.timer = setTimeout(() => {
          // Cut off, as in the manager's thread (a hook or listener as a listener timeout). Whether
          // the thread is stuck (a loop) or only waiting (on a slow server start) is asked next.
          this.#settle(id)?.reject(
            call.kind === 'hook' || call.kind === 'listener'
              ? new SmError('SM_ERR_KERNEL_LISTENER_TIMEOUT', {
                  owner: `plugin:${this.name}`,
                  event: call.kind === 'hook' ? call.hook.event : what,
                  ms: timeoutMs,
                })
              : new SmError('SM_ERR_PLUGIN_TIMEOUT', { plugin: this.name, where: what, ms: timeoutMs }),
          )
          this.#probe(what, timeoutMs)
        }, timeoutMs)
      this.#pending.set(id, pending)
      this.#post({ t: 'call', id, call })
    })
  }

  /**
   * After a call timed out: a thread that does not answer a ping within PING_MS is stuck (a
   * synchronous loop) and is ended, a fault; one that answers was only waiting, and lives on.
   */
  #probe(what: string, ms: number): void {
    if (this.#ended || this.#probing) return
    this.#probing = true
    const timer = setTimeout(() => {
      this.#onPong = undefined
      this.#probing = false
      this.#fault(
        new SmError('SM_ERR_PLUGIN_TIMEOUT', { plugin: this.name, where: what, ms }),
        ' Its thread did not answer either (a loop), so it was ended; the action went on without it.',
      )
    }, PING_MS)
    this.#onPong = () => {
      clearTimeout(timer)
      this.#probing = false
      this.#logger.warn(`${what} did not return within ${ms} ms and was cut off; its thread answers, so it lives on`)
    }
    this.#post({ t: 'ping' })
  }

  /**
   * The body of a streamed route answer: what the thread sends is acknowledged as the client takes
   * it in (so the thread's stream waits on a slow client), and a client that goes cancels it there.
   */
  #streamOf(id: number): PassThrough {
    const stream = new PassThrough()
    this.#streams.set(id, { stream, owed: 0 })
    stream.on('drain', () => this.#pulled(id))
    stream.on('close', () => {
      // Closed before the thread's end: nobody reads it any more.
      if (this.#streams.delete(id) && !this.#ended) this.#post({ t: 'cancel', id })
    })
    return stream
  }

  #pulled(id: number): void {
    const body = this.#streams.get(id)
    if (!body || body.owed === 0 || this.#ended) return
    const bytes = body.owed
    body.owed = 0
    this.#post({ t: 'pulled', id, bytes })
  }

  /** Posts to the thread: calls a turn's worth at a time (outbox.ts), anything else at once. */
  #post(message: Down): void {
    if (message.t === 'call') this.#calls(message)
    else this.#postNow(message)
  }

  // A call gathered before the thread ended (its caller was answered with the reason) is dropped.
  readonly #calls = outbox<Down>(
    (batch) => {
      if (!this.#ended) this.#worker.postMessage(batch)
    },
    (message) => {
      if (!this.#ended) this.#postNow(message)
    },
  )

  /** Posts one message; a reply goes only while the thread runs (or drains after an unload). */
  #postNow(message: Down): void {
    if (message.t === 'reply' && this.#ended && !this.#draining) return
    try {
      this.#worker.postMessage(message)
    } catch (error) {
      // A value that cannot be cloned fails that one call or reply, said so; the thread is fine.
      if (message.t === 'reply')
        this.#worker.postMessage({ t: 'reply', id: message.id, ok: false, error: { message: reasonOf(error) } })
      if (message.t === 'call') {
        const pending = this.#settle(message.id)
        pending?.reject(
          new SmError('SM_ERR_PLUGIN_CRASHED', { plugin: this.name, where: pending.what, reason: reasonOf(error) }),
        )
      }
    }
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id)
    if (!pending) return undefined
    this.#pending.delete(id)
    clearTimeout(pending.timer)
    return pending
  }

  /**
   * A message from the thread. The thread is the plugin's own code, which can post anything: a
   * message this cannot take ends that thread (never the manager).
   */
  #receive(message: Up | Batch<Up>): void {
    if (message?.t === 'batch' && Array.isArray(message.messages)) {
      for (const each of message.messages) this.#receiveOne(each)
      return
    }
    this.#receiveOne(message as Up)
  }

  #receiveOne(message: Up): void {
    try {
      this.#take(message)
    } catch (error) {
      this.#fault(
        new SmError('SM_ERR_PLUGIN_CRASHED', {
          plugin: this.name,
          where: this.#where(),
          reason: `it posted a message the manager cannot take (${reasonOf(error)})`,
        }),
      )
    }
  }

  #take(message: Up): void {
    switch (message?.t) {
      case 'pong':
        this.#onPong?.()
        this.#onPong = undefined
        return
      case 'imported':
        this.#onImported?.()
        return
      case 'ready':
        this.#onReady?.(message)
        return
      case 'drained':
        this.#onDrained?.()
        return
      case 'result': {
        const pending = this.#settle(message.id)
        if (!pending) {
          // Too late (its call timed out): a body it streams has nobody to go to.
          if (message.ok && (message.value as ForwardedResponse | undefined)?.streamed === true && !this.#ended)
            this.#postNow({ t: 'cancel', id: message.id })
          return
        }
        if (!message.ok) pending.reject(fromThreadError(message.error ?? { message: 'no error given' }))
        else if (!pending.page) pending.resolve(message.value)
        else {
          // A route's answer; its body's pieces follow when it is streamed.
          const response = message.value as ForwardedResponse
          const stream = response.streamed ? this.#streamOf(message.id) : undefined
          pending.resolve({ response, stream })
        }
        return
      }
      case 'chunk': {
        if (!(message.data instanceof Uint8Array)) throw new TypeError('a streamed piece that is not bytes')
        const body = this.#streams.get(message.id)
        if (!body) {
          // A body nobody reads any more (or never did): the thread ends it.
          if (!this.#ended) this.#postNow({ t: 'cancel', id: message.id })
          return
        }
        // Told once the client has taken it in (or at once, while the stream's buffer has room).
        body.owed += message.data.byteLength
        if (body.stream.write(message.data)) this.#pulled(message.id)
        return
      }
      case 'end': {
        const stream = this.#streams.get(message.id)?.stream
        this.#streams.delete(message.id)
        if (message.error) stream?.destroy(new Error(message.error))
        else stream?.end()
        return
      }
      case 'ask':
        this.#answer(message.id, message.in, message.ask)
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
  #answer(id: number, within: number | undefined, ask: Ask): void {
    // The chain of the call it came from, also after that call returned (work it started and did not await).
    const chain = within === undefined ? undefined : this.#chains.get(within)
    const work = async (): Promise<unknown> => {
      switch (ask.op) {
        case 'api': {
          // The operation runs here, the table's own code (its argument checks, its rules on
          // secrets and settings), whatever the thread posted.
          const operation = (this.#gateway.api as unknown as Record<string, (...args: unknown[]) => unknown>)[ask.name]
          if (typeof operation !== 'function' || !Object.hasOwn(this.#gateway.api, ask.name))
            throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', { plugin: this.name, what: `call this.api.${ask.name}` })
          const what = typeof ask.args[0] === 'string' ? ask.args[0] : ask.name
          const value = await operation(...ask.args.map((arg) => this.#fromThread(arg, what)))
          if (typeof value !== 'function') return value
          const back = this.#nextId++
          this.#callbacks.set(back, value as (...args: unknown[]) => unknown)
          return { __fn: back }
        }
        case 'callback': {
          const callback = this.#callbacks.get(ask.fn)
          if (!callback)
            throw new SmError('SM_ERR_PLUGIN_FORBIDDEN', {
              plugin: this.name,
              what: 'call back a function it was not given',
            })
          return callback(...ask.args)
        }
        case 'page': {
          const page = within === undefined ? undefined : this.#pending.get(within)?.page
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
    runInContext({ actor: `plugin:${this.name}`, chain }, work).then(
      (value) => this.#post({ t: 'reply', id, ok: true, value }),
      (error: unknown) => this.#post({ t: 'reply', id, ok: false, error: toThreadError(error) }),
    )
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
        const abort = () => this.#post({ t: 'abort', task })
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

  /** What the thread was running, for a fault's message: the latest call still waiting. */
  #where(): string {
    let latest: string | undefined
    for (const pending of this.#pending.values()) latest = pending.what
    return latest ?? 'its own code (a timer or a promise, outside any hook)'
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
    this.#unwatch()
    const error = why === 'unloaded' ? new SmError('SM_ERR_PLUGIN_REVOKED', { plugin: this.name, call: 'a call' }) : why
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error)
    const streams = [...this.#streams.values()]
    this.#streams.clear()
    for (const { stream } of streams) stream.destroy(error)
    this.#gateway.revoke()
    this.#callbacks.clear()
    this.#scope.dispose()
    // A thread that has exited already (threadId -1) has nothing left to wait for.
    if (drainMs > 0 && this.#worker.threadId >= 0) {
      this.#draining = true
      this.#worker.unref()
      void this.#drain(drainMs)
      return
    }
    await this.#worker.terminate()
  }

  async #drain(drainMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      new Promise<void>((resolve) => {
        this.#onDrained = resolve
        this.#post({ t: 'unload' })
      }),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs)
        timer.unref()
      }),
      new Promise<void>((resolve) => this.#worker.once('exit', () => resolve())),
    ])
    clearTimeout(timer)
    this.#draining = false
    await this.#worker.terminate()
  }
}

/** The names of `this.api` a thread offers: each operation and its aliases, with the function it keeps there. */
function apiNames(): ApiName[] {
  return Object.entries(API_TABLE as Record<string, Operation>).flatMap(([name, operation]) => {
    const takes = name === 'listenForEvent' ? 'listener' : name === 'runTask' ? 'task' : undefined
    return [name, ...operation.aliases].map((as) => (takes ? { name: as, takes } : { name: as }))
  })
}
