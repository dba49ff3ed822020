import { AsyncLocalStorage } from 'node:async_hooks'
import { dirname } from 'node:path'
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import type { LogFields, Logger } from '../../../kernel'
import { deepFreeze } from '../../../kernel/deep-freeze'
import { reasonOf, SmError } from '../../../kernel/errors'
import type { TaskContext } from '../../tasks/contract'
import type { PageData, RouteRunner, ThreadWeb } from '../../web/contract'
import { contributionsOf, extensionOf } from '../extension'
import type { HookCall } from '../hook-binding'
import { callMethod, hookMethodsOf, hookWarnings } from '../hook-methods'
import type { PluginContributions } from '../loaded-plugin'
import type { CustomEventListener, PluginApi } from '../plugin-api'
import type { PluginBase } from '../plugin-base'
import { importFailure, PluginImporter, staticsOf } from '../plugin-module'
import { registerPluginRoot } from '../process-guard'
import { Channel, Streamed } from './channel'
import {
  type ApiName,
  type Ask,
  type AskCall,
  type BatchAnswer,
  type Call,
  type Down,
  type Inspect,
  type InspectorData,
  THREAD_LOG_LEVELS,
  type ThreadData,
  type Up,
} from './protocol'
import { toThreadError } from './wire'

/**
 * An inspector thread (docs/architecture.md, "Plugins in threads"): imports each plugin module
 * the manager sends and answers its statics, so that discovery runs no plugin's top-level code
 * in the manager's thread. The manager ends it when a pass is done, or when an import hangs.
 */
export function runInspectorThread(sdk: { sdk: object; web: () => object; cli: () => object }): void {
  const port = parentPort as MessagePort
  const data = workerData as InspectorData
  // What a module's code throws or rejects after its import answered (a timer, a forgotten
  // promise) is not an import's result: the next module's import goes on.
  process.on('uncaughtException', () => {})
  process.on('unhandledRejection', () => {})
  const importer = new PluginImporter(sdk, data.cacheDir)
  const channel = new Channel<never, Inspect>({
    post: (message) => port.postMessage(message),
    worker: true,
    serve: async ({ candidate }) => {
      registerPluginRoot(candidate.root, candidate.name)
      return staticsOf(await importer.import(candidate))
    },
  })
  port.on('message', (message: unknown) => channel.receive(message))
}

/** What a host thread gives each plugin it runs. */
export interface Seat {
  /** The plugin's own port to the manager (its channel and its messages). */
  readonly port: MessagePort
  readonly data: ThreadData
  /** Runs `fn` as this plugin's code: its slot marked for blame, its timers its own (host-thread.ts). */
  readonly enter: <T>(fn: () => T) => T
  /** The thread's importer for a transpile cache (one for every plugin in it). */
  readonly importer: (cacheDir: string | false) => PluginImporter
  /** Says a plugin's import and construction began (+1) or ended (-1): the watchdog allows it the import's time. */
  readonly importing: (delta: 1 | -1) => void
  /** Runs a batch of hooks of plugins in this thread (host-thread.ts). */
  readonly batch: (call: Extract<Call, { kind: 'batch' }>) => Promise<readonly BatchAnswer[]>
}

/** A plugin as its host thread keeps it: how to run one of its hooks, and how to forget it. */
export interface Seated {
  /** Runs one of its hooks with a payload that is frozen already (a batch's, shared). */
  readonly hook: (hook: HookCall, payload: unknown) => unknown
  readonly forget: () => void
}

/** The modules a plugin's code is handed: the SDK, and the web service's part in the thread. */
export interface ThreadModules {
  readonly sdk: object
  readonly web: () => object
  readonly cli: () => object
  /** The web service's part in the thread, loaded when the plugin has routers. */
  readonly threadWeb: () => ThreadWeb
}

/**
 * One plugin in a plugin thread (docs/architecture.md, "Plugins in threads"): imports the
 * plugin, makes its instance with a `this.api` and a `this.logger` that reach the manager over
 * its port, and answers the manager's calls (hooks, listeners, lifecycle, tasks, routes). The
 * plugin's code runs here only; what crosses is plain data. Returns what forgets it once the
 * manager has unloaded it (its host thread may run others on).
 */
export function runPlugin(modules: ThreadModules, seat: Seat): Seated {
  const { port, data } = seat
  const plugin = data.plugin
  const post = (message: Up) => port.postMessage(message)
  // The call the plugin's code is running, so that what it asks carries its causal chain.
  const running = new AsyncLocalStorage<number>()
  const listeners = new Map<number, { name: string; fn: CustomEventListener }>()
  const tasks = new Map<number, { fn: (ctx: TaskContext) => Promise<unknown>; abort: AbortController }>()
  let nextId = 1
  // Unloaded: once nothing it asked for is waiting and its code has run on from the last answer.
  let unloading = false
  const drainedYet = () => {
    if (unloading && channel.pending === 0) setImmediate(() => channel.pending === 0 && post({ t: 'drained' }))
  }
  const own = (message: Down) => {
    switch (message.t) {
      case 'abort':
        tasks.get(message.task)?.abort.abort()
        return
      case 'unload':
        revoked = true
        listeners.clear()
        unloading = true
        drainedYet()
        return
    }
  }
  // Its calls are answered a turn's worth at a time, streamed route bodies after them (channel.ts).
  const channel: Channel<AskCall, Call, Up, Down> = new Channel<AskCall, Call, Up, Down>({
    post: (message) => port.postMessage(message),
    worker: true,
    serve: (call, id) => running.run(id, () => run(call)),
    onMessage: own,
    onResult: drainedYet,
    unsendable: (ok, reason) =>
      `${ok ? 'it returned a value' : 'it failed with an error'} that cannot leave the plugin's thread (${reason})`,
  })
  // An argument that cannot leave the thread (a function where data belongs, a socket) fails its ask.
  const ask = (request: Ask): Promise<unknown> =>
    channel.call({ in: running.getStore(), ask: request }, { meta: undefined })

  const logger = threadLogger(post, data.logLevel)
  let revoked = false
  const api = threadApi(plugin, data.api, {
    revoked: () => revoked,
    ask,
    keepListener(name, fn) {
      const id = nextId++
      listeners.set(id, { name, fn: fn as CustomEventListener })
      return id
    },
    keepTask(fn) {
      const id = nextId++
      tasks.set(id, { fn: fn as (ctx: TaskContext) => Promise<unknown>, abort: new AbortController() })
      return id
    },
    forget(id) {
      listeners.delete(id)
      tasks.delete(id)
    },
  })

  registerPluginRoot(data.candidate.root, plugin)
  let instance: PluginBase | undefined
  let routes: RouteRunner | undefined
  let routers: readonly unknown[] = []
  let templatePaths: readonly unknown[] = []

  const hook = (hook: HookCall, payload: unknown): unknown => {
    if (!instance) throw new Error('the plugin is not made yet')
    return hook.any
      ? callMethod(instance, 'onAnyEvent', hook.event, payload)
      : callMethod(instance, hook.method, payload)
  }
  const run = (call: Call): unknown => {
    const made = instance
    if (!made) throw new Error('the plugin is not made yet')
    switch (call.kind) {
      // What the manager sends is a copy: frozen, as the bus's payloads are, so a change throws as it would there.
      case 'hook':
        return hook(call.hook, deepFreeze(call.payload))
      case 'batch':
        return seat.batch(call)
      case 'listener': {
        const listener = listeners.get(call.listener)
        return listener?.fn(deepFreeze(call.payload) as Record<string, unknown>, {
          event: listener.name,
          sender: call.sender,
        })
      }
      case 'lifecycle':
        return callMethod(made, call.hook)
      case 'task': {
        const task = tasks.get(call.task)
        if (!task) throw new Error('the task is not known in the plugin thread')
        const ctx: TaskContext = {
          id: call.taskId,
          signal: task.abort.signal,
          progress: (percent, message) => post({ t: 'progress', task: call.task, percent, message }),
        }
        return Promise.resolve(task.fn(ctx)).finally(() => tasks.delete(call.task))
      }
      case 'describe':
        return contributionsOf(plugin, data.candidate, (method) => extensionOf(made, plugin, method)).then(
          ({ cli, web }) => {
            // Its routers stay here, for its routes; the manager gets what they are.
            routers = web.routers
            templatePaths = web.templatePaths
            routes = undefined
            const described: PluginContributions = {
              cli,
              web: { ...web, routers: routers.length > 0 ? modules.threadWeb().describeRouters(plugin, routers) : [] },
            }
            return described
          },
        )
      case 'route': {
        routes ??= modules.threadWeb().routeRunner(plugin, routers, {
          root: dirname(data.candidate.entry),
          templatePaths,
          cacheTemplates: process.env.SM_WEB_DEV !== '1',
        })
        const page = () => ask({ op: 'page' }) as Promise<PageData>
        return routes(call.request, page).then(({ response, stream }) => new Streamed(response, stream))
      }
    }
  }

  const receive = (message: unknown) => seat.enter(() => channel.receive(message))
  port.on('message', receive)
  void seat.enter(async () => {
    seat.importing(1)
    try {
      const definition = await seat.importer(data.cacheDir).import(data.candidate)
      post({ t: 'imported' })
      try {
        instance = new definition.cls({ name: plugin, version: definition.version, logger, api })
      } catch (error) {
        throw new SmError(
          'SM_ERR_PLUGIN_LOAD_FAILED',
          { plugin, phase: 'its constructor', reason: reasonOf(error) },
          { cause: error },
        )
      }
    } catch (error) {
      post({ t: 'failed', error: toThreadError(importFailure(plugin, error)) })
      return
    } finally {
      seat.importing(-1)
    }
    // The hooks a plugin may override are the manager's services' actions, as it handed them over.
    const methods = hookMethodsOf(instance, data.actions)
    const warnings = hookWarnings(instance, data.actions)
    post({ t: 'ready', methods, any: typeof Reflect.get(instance, 'onAnyEvent') === 'function', warnings })
  })
  return {
    hook,
    forget: () => {
      revoked = true
      listeners.clear()
      tasks.clear()
      port.off('message', receive)
      port.close()
    },
  }
}

/** `this.logger` in a plugin's thread: each line goes to the manager's log, as `plugin:<name>`. */
function threadLogger(post: (message: Up) => void, level: string, name?: string): Logger {
  const lowest = Math.max(0, THREAD_LOG_LEVELS.indexOf(level as (typeof THREAD_LOG_LEVELS)[number]))
  const line =
    (at: (typeof THREAD_LOG_LEVELS)[number]) =>
    (message: string, fields?: LogFields): void => {
      if (THREAD_LOG_LEVELS.indexOf(at) < lowest) return
      try {
        post({ t: 'log', name, level: at, message: String(message), fields })
      } catch {
        // Fields that cannot be cloned (a function, a socket): their text instead.
        post({ t: 'log', name, level: at, message: String(message), fields: { fields: reasonOf(fields) } })
      }
    }
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (child) => threadLogger(post, level, name ? `${name}:${child}` : child),
  }
}

/**
 * `this.api` in a plugin's thread: each operation of the manager's table (names and aliases
 * handed over in the thread's data) as a message to the manager, which runs the operation itself
 * (its argument checks, its rules on secrets and settings) as the plugin. A listener or a task's
 * work stays here, named by an id; a function the manager answers with (stop listening) is
 * called back there.
 */
function threadApi(
  plugin: string,
  names: readonly ApiName[],
  link: {
    revoked(): boolean
    ask(request: Ask): Promise<unknown>
    keepListener(event: string, fn: unknown): number
    keepTask(fn: unknown): number
    forget(id: number): void
  },
): PluginApi {
  const entries = names.map(({ name, takes }) => {
    const call = async (...args: unknown[]): Promise<unknown> => {
      if (link.revoked()) throw new SmError('SM_ERR_PLUGIN_REVOKED', { plugin, call: `this.api.${name}` })
      const sent = [...args]
      let kept: number | undefined
      if (takes === 'listener' && typeof args[1] === 'function') {
        kept = link.keepListener(String(args[0]), args[1])
        sent[1] = { __listener: kept }
      } else if (takes === 'task' && typeof args[1] === 'function') {
        kept = link.keepTask(args[1])
        sent[1] = { __task: kept }
      }
      let value: unknown
      try {
        value = await link.ask({ op: 'api', name, args: sent })
      } catch (error) {
        if (kept !== undefined) link.forget(kept)
        if (error instanceof SmError) throw error
        throw new SmError('SM_ERR_PLUGIN_API_BAD_ARGUMENT', {
          plugin,
          call: `this.api.${name}`,
          parameter: 'an argument',
          reason: `it cannot be sent to the manager (${reasonOf(error)})`,
          usage: 'plain data: strings, numbers, booleans, arrays and objects of them',
        })
      }
      const back = (value as { __fn?: unknown } | null)?.__fn
      return typeof back === 'number'
        ? (...more: unknown[]) => link.ask({ op: 'callback', fn: back, args: more })
        : value
    }
    return [name, call] as const
  })
  const api = Object.freeze(Object.fromEntries(entries))
  if (!offersEvery(api, names)) throw new TypeError("this.api lacks operations of the manager's table")
  return api
}

/** Whether `api` has a function for each name of the manager's table it was handed (which is what `PluginApi` is). */
function offersEvery(api: object, names: readonly ApiName[]): api is PluginApi {
  return names.every(({ name }) => typeof Reflect.get(api, name) === 'function')
}
