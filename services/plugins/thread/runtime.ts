import { AsyncLocalStorage } from 'node:async_hooks'
import { dirname } from 'node:path'
import type { Readable } from 'node:stream'
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import { z } from 'zod'
import type { LogFields, Logger } from '../../../kernel'
import { defineActions } from '../../../kernel/action-catalogue'
import { deepFreeze } from '../../../kernel/deep-freeze'
import { reasonOf, SmError } from '../../../kernel/errors'
import type { TaskContext } from '../../tasks/contract'
import type { PageData, RouteRunner, ThreadWeb } from '../../web/contract'
import { contributionsOf, extensionOf } from '../extension'
import { hookMethodsOf, unknownHookMethods } from '../hook-methods'
import type { PluginContributions } from '../loaded-plugin'
import type { CustomEventListener, PluginApi } from '../plugin-api'
import type { PluginBase } from '../plugin-base'
import { importFailure, PluginImporter, staticsOf } from '../plugin-module'
import { registerPluginRoot } from '../process-guard'
import { reportMemory } from './memory-watch'
import { type Batch, eachInTurn, outbox } from './outbox'
import {
  type ApiName,
  type Ask,
  type Call,
  type Down,
  type Inspect,
  type Inspected,
  type InspectorData,
  THREAD_LOG_LEVELS,
  type ThreadData,
  type Up,
} from './protocol'
import { fromThreadError, toThreadError } from './wire'

type Callable = (...args: unknown[]) => unknown

/** How far a streamed route body may run ahead of what the manager has sent to the client (bytes). */
const STREAM_WINDOW = 1 << 20

/**
 * An inspector thread (docs/architecture.md, "Plugins in threads"): imports each plugin module
 * the manager sends and answers its statics, so that discovery runs no plugin's top-level code
 * in the manager's thread. The manager ends it when a pass is done, or when an import hangs.
 */
export function runInspectorThread(sdk: { sdk: object; web: () => object; cli: () => object }): void {
  const port = parentPort as MessagePort
  const data = workerData as InspectorData
  const importer = new PluginImporter(sdk, data.cacheDir)
  port.on('message', async ({ candidate }: Inspect) => {
    let answer: Inspected
    try {
      registerPluginRoot(candidate.root, candidate.name)
      answer = { ok: true, statics: staticsOf(await importer.import(candidate)) }
    } catch (error) {
      answer = { ok: false, error: toThreadError(error) }
    }
    port.postMessage(answer)
  })
}

/**
 * A plugin's thread (docs/architecture.md, "Plugins in threads"): imports the plugin, makes its
 * instance with a `this.api` and a `this.logger` that reach the manager over the thread's port,
 * and answers the manager's calls (hooks, listeners, lifecycle, tasks, routes). The plugin's code
 * runs here only; what crosses is plain data.
 */
export async function runPluginThread(modules: {
  sdk: object
  web: () => object
  cli: () => object
  /** The web service's part in the thread, loaded when the plugin has routers. */
  threadWeb: () => ThreadWeb
}): Promise<void> {
  const sdk = { sdk: modules.sdk, web: modules.web, cli: modules.cli }
  const port = parentPort as MessagePort
  const data = workerData as ThreadData
  const plugin = data.plugin
  reportMemory(data.memory)
  const post = (message: Up) => port.postMessage(message)
  // Results, and the streamed bodies that follow them, cross a turn's worth at a time (outbox.ts);
  // a result that cannot be cloned is answered as an error of its own call.
  const respond = outbox<Up>(
    (batch) => port.postMessage(batch),
    (message) => (message.t === 'result' ? answer(post, message) : post(message)),
  )
  // The call the plugin's code is running, so that what it asks carries its causal chain.
  const running = new AsyncLocalStorage<number>()
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>()
  const listeners = new Map<number, { name: string; fn: CustomEventListener }>()
  const tasks = new Map<number, { fn: (ctx: TaskContext) => Promise<unknown>; abort: AbortController }>()
  let nextId = 1

  const ask = (request: Ask): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      try {
        post({ t: 'ask', id, in: running.getStore(), ask: request })
      } catch (error) {
        // An argument that cannot leave the thread (a function where data belongs, a socket).
        pending.delete(id)
        reject(error)
      }
    })

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

  // The hooks a plugin may override are the manager's services' actions, declared here as there.
  // Their payloads are checked in the manager, before a hook here is called.
  const checkedThere: z.ZodType = z.unknown()
  for (const { owner, name, declaration } of data.actions)
    defineActions(owner, { [name]: { ...declaration, payload: checkedThere } })
  registerPluginRoot(data.candidate.root, plugin)
  const importer = new PluginImporter(sdk, data.cacheDir)
  let instance: PluginBase
  try {
    const definition = await importer.import(data.candidate)
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
    // The manager reads the first result as the load's outcome.
    post({ t: 'result', id: 0, ok: false, error: toThreadError(importFailure(plugin, error)) })
    return
  }
  const methods = instance as unknown as Record<string, Callable | undefined>
  const hookMethods = hookMethodsOf(instance)
  const warnings = unknownHookMethods(instance).map(({ method, nearest }) => {
    const hint = nearest ? `; did you mean '${nearest}'?` : '; see the hook reference in docs/plugins.md'
    return `'${method}' looks like a hook but is not one, so it is never called${hint}`
  })
  let routes: RouteRunner | undefined
  let routers: readonly unknown[] = []
  let templatePaths: readonly unknown[] = []

  const run = (call: Call): unknown => {
    switch (call.kind) {
      case 'hook': {
        // What the manager sends is a copy: frozen, as the bus's payloads are, so a change throws as it would there.
        const payload = deepFreeze(call.payload)
        const { hook } = call
        return hook.any
          ? methods.onAnyEvent?.call(instance, hook.event, payload)
          : methods[hook.method]?.call(instance, payload)
      }
      case 'listener': {
        const listener = listeners.get(call.listener)
        return listener?.fn(deepFreeze(call.payload) as Record<string, unknown>, {
          event: listener.name,
          sender: call.sender,
        })
      }
      case 'lifecycle':
        return methods[call.hook]?.call(instance)
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
        return contributionsOf(plugin, data.candidate, (method) => extensionOf(instance, plugin, method)).then(
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
        return routes(call.request, page).then(({ response, stream }) => ({ response, stream }))
      }
    }
  }

  // Streamed route bodies being sent, by call id, with the bytes the manager has not yet sent on.
  const flows = new Map<number, { readonly stream: Readable; inFlight: number }>()
  /**
   * Sends a streamed route answer's body on, piece by piece, after the answer itself: at most
   * STREAM_WINDOW bytes ahead of what the manager has sent to the client (the plugin's stream is
   * paused meanwhile), and destroyed when the client goes.
   */
  const pipe = (id: number, stream: Readable) => {
    const flow = { stream, inFlight: 0 }
    flows.set(id, flow)
    stream.on('data', (chunk: unknown) => {
      const bytes =
        chunk instanceof Uint8Array ? chunk : Buffer.from(typeof chunk === 'string' ? chunk : JSON.stringify(chunk))
      // Its own memory: a view of Node's shared pool would carry the whole 8 KiB slab across.
      const data = bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes)
      flow.inFlight += data.byteLength
      respond({ t: 'chunk', id, data })
      if (flow.inFlight >= STREAM_WINDOW) stream.pause()
    })
    stream.on('end', () => {
      flows.delete(id)
      respond({ t: 'end', id })
    })
    stream.on('error', (error) => {
      if (flows.delete(id)) respond({ t: 'end', id, error: reasonOf(error) })
    })
    // Destroyed by the plugin without an end or an error: the client is told it broke off.
    stream.on('close', () => {
      if (flows.delete(id)) respond({ t: 'end', id, error: 'the stream was destroyed before its end' })
    })
  }

  // Unloaded: once nothing it asked for is waiting and its code has run on from the last answer.
  let unloading = false
  const drainedYet = () => {
    if (unloading && pending.size === 0) setImmediate(() => pending.size === 0 && post({ t: 'drained' }))
  }

  const handle = (message: Down) => {
    switch (message.t) {
      case 'call': {
        const { id, call } = message
        running.run(id, () => {
          let value: unknown
          try {
            value = run(call)
          } catch (error) {
            respond({ t: 'result', id, ok: false, error: toThreadError(error) })
            return
          }
          if (value && typeof (value as Promise<unknown>).then === 'function')
            (value as Promise<unknown>).then(
              (settled) => {
                if (call.kind !== 'route') return respond({ t: 'result', id, ok: true, value: settled })
                const { response, stream } = settled as { response: unknown; stream?: Readable }
                respond({ t: 'result', id, ok: true, value: response })
                if (stream) pipe(id, stream)
              },
              (error: unknown) => respond({ t: 'result', id, ok: false, error: toThreadError(error) }),
            )
          else respond({ t: 'result', id, ok: true, value })
        })
        return
      }
      case 'reply': {
        const waiting = pending.get(message.id)
        if (!waiting) return
        pending.delete(message.id)
        if (message.ok) waiting.resolve(message.value)
        else waiting.reject(fromThreadError(message.error))
        drainedYet()
        return
      }
      case 'abort':
        tasks.get(message.task)?.abort.abort()
        return
      case 'pulled': {
        const flow = flows.get(message.id)
        if (!flow) return
        flow.inFlight -= message.bytes
        if (flow.inFlight < STREAM_WINDOW && flow.stream.isPaused()) flow.stream.resume()
        return
      }
      case 'cancel': {
        const flow = flows.get(message.id)
        flows.delete(message.id)
        flow?.stream.destroy()
        return
      }
      case 'ping':
        post({ t: 'pong' })
        return
      case 'unload':
        revoked = true
        listeners.clear()
        unloading = true
        drainedYet()
        return
    }
  }
  port.on('message', (message: Down | Batch<Down>) => {
    if (message.t !== 'batch') return handle(message)
    eachInTurn(message.messages, handle, respond.flush)
  })
  post({ t: 'ready', methods: hookMethods, any: typeof methods.onAnyEvent === 'function', warnings })
}

/** Posts a call's result; one that cannot be cloned (a function, a class instance with one, an error's odd parameter) is an error, said so. */
function answer(post: (message: Up) => void, result: Extract<Up, { t: 'result' }>): void {
  try {
    post(result)
  } catch (error) {
    const what = result.ok ? 'it returned a value' : 'it failed with an error'
    post({
      t: 'result',
      id: result.id,
      ok: false,
      error: { message: `${what} that cannot leave the plugin's thread (${reasonOf(error)})` },
    })
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
  return Object.freeze(Object.fromEntries(entries)) as unknown as PluginApi
}
