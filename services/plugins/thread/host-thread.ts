import { AsyncLocalStorage, createHook } from 'node:async_hooks'
import { promisify } from 'node:util'
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import { deepFreeze } from '../../../kernel/deep-freeze'
import { SmError } from '../../../kernel/errors'
import { isThenable, timeBox } from '../../../kernel/time-box'
import { isVeto } from '../../../kernel/veto'
import { PluginImporter } from '../plugin-module'
import { pluginOnStack } from '../process-guard'
import { reportMemory } from './memory-watch'
import { type BatchAnswer, BLAME, type Call, type HostData, type HostDown } from './protocol'
import { runPlugin, type Seated, type ThreadModules } from './runtime'
import { toThreadError } from './wire'

/** One plugin the host runs: its slot (what blame names) and the timers its code set. */
interface Occupant {
  readonly slot: number
  readonly plugin: string
  readonly timers: Set<NodeJS.Timeout | NodeJS.Immediate>
  seated?: Seated
}

// The module object itself (an `import *` would be a copy): what a plugin's `require('node:timers')` gets.
import timersModule = require('node:timers')

const OWNER = Symbol('sm.occupant')
/** How often the thread beats while its loop is free (the manager's watchdog reads it). */
const BEAT_MS = 50

type BatchCall = Extract<Call, { kind: 'batch' }>

/**
 * A plugin thread (docs/architecture.md, "Plugins in threads"): runs each plugin the manager
 * seats in it (`seat`, with a port of the plugin's own) until the manager drops it. One thread
 * may run several plugins (plugins.isolation 'shared') or one ('thread'). What this thread does
 * for the manager to tell which plugin ended it, when one does, is kept in the shared `blame`
 * array, written synchronously before the thread can die:
 *
 * - the plugin whose code this thread last entered (a call from the manager on its port, or
 *   anything that runs later in that plugin's async context: a timer, a promise's continuation,
 *   an I/O callback): who is blamed for a loop, a heap run out, or memory held outside the heap;
 * - the plugin that called `process.exit` (by its file on the stack, else the code running);
 * - the plugin an uncaught error or rejection came from (the same way).
 *
 * The same array counts entries into plugin code and beats while the loop is free, for the
 * manager's watchdog (plugin-host.ts). The plugins share one importer (one jiti per transpile
 * cache). A dropped plugin's timers are cleared, so its forgotten `setInterval` does not run on
 * beside the others. What else it left (a socket, a server) lives until the thread ends.
 */
export function runHostThread(modules: ThreadModules): void {
  const port = parentPort as MessagePort
  const { memory, blame } = workerData as HostData
  reportMemory(memory)
  const occupants = new Map<number, Occupant>()
  const byName = new Map<string, Occupant>()
  const current = new AsyncLocalStorage<Occupant>()
  // Each entry into a plugin's code is counted (the manager's watchdog tells a thread that
  // works through many plugins' hooks from one held by one), and the thread beats while its
  // loop is free.
  const mark = (occupant: Occupant) => {
    Atomics.store(blame, BLAME.current, occupant.slot)
    Atomics.add(blame, BLAME.entries, 1)
  }
  real.setInterval(() => Atomics.add(blame, BLAME.beat, 1), BEAT_MS).unref()
  // Whatever runs later in a plugin's async context (a timer's callback, a promise's
  // continuation, an I/O callback) marks that plugin as the code entered.
  createHook({
    before() {
      const occupant = current.getStore()
      if (occupant) mark(occupant)
    },
  }).enable()
  const importing = (delta: number) => Atomics.add(blame, BLAME.importing, delta)
  const importers = new Map<string | false, PluginImporter>()
  const importer = (cacheDir: string | false) => {
    let made = importers.get(cacheDir)
    if (!made) {
      made = new PluginImporter({ sdk: modules.sdk, web: modules.web, cli: modules.cli }, cacheDir)
      importers.set(cacheDir, made)
    }
    return made
  }
  const enter = <T>(occupant: Occupant, fn: () => T): T =>
    current.run(occupant, () => {
      mark(occupant)
      return fn()
    })
  /** Whose code threw or exits: its file on the stack, else the plugin whose code runs. */
  const culprit = (stack: string | undefined): Occupant | undefined => {
    const plugin = pluginOnStack(stack)
    return (plugin === undefined ? undefined : byName.get(plugin)) ?? current.getStore()
  }
  trackTimers(current)
  const exit = process.exit.bind(process)
  process.exit = ((code?: number | string | null) => {
    const occupant = culprit(new Error().stack)
    if (occupant) Atomics.store(blame, BLAME.exited, occupant.slot)
    return exit(code)
  }) as typeof process.exit
  process.on('uncaughtExceptionMonitor', (error) => {
    const occupant = culprit((error as Error | null)?.stack)
    if (occupant) Atomics.store(blame, BLAME.crashed, occupant.slot)
  })
  /** Hooks of several plugins here, each as its own code, under the hook timeout, in the order asked. */
  const batch = async ({ calls, payload, order, timeoutMs }: BatchCall): Promise<BatchAnswer[]> => {
    const frozen = deepFreeze(payload)
    const start = ({ slot, hook }: BatchCall['calls'][number]): unknown => {
      const occupant = occupants.get(slot)
      const { seated } = occupant ?? {}
      if (!occupant || !seated) throw new Error('the plugin is no longer in its thread')
      const returned = enter(occupant, () => seated.hook(hook, frozen))
      if (!isThenable(returned)) return returned
      // Its timer is no plugin's: set outside any plugin's context, it marks none when it fires.
      const owner = `plugin:${occupant.plugin}`
      const timedOut = () => new SmError('SM_ERR_KERNEL_LISTENER_TIMEOUT', { owner, event: hook.event, ms: timeoutMs })
      return current.exit(() => timeBox(returned, timeoutMs, timedOut))
    }
    // A hook's answer, at once when it is not a promise: an await costs a synchronous hook ten times its own time.
    const settle = (call: BatchCall['calls'][number]): BatchAnswer | Promise<BatchAnswer> => {
      try {
        const value = start(call)
        if (!isThenable(value)) return { ok: true, value }
        return Promise.resolve(value).then(
          (settled): BatchAnswer => ({ ok: true, value: settled }),
          (error: unknown): BatchAnswer => ({ ok: false, error: toThreadError(error) }),
        )
      } catch (error) {
        return { ok: false, error: toThreadError(error) }
      }
    }
    if (order === 'together') {
      const settled = calls.map(settle)
      return settled.some(isThenable) ? Promise.all(settled) : (settled as BatchAnswer[])
    }
    const answers: BatchAnswer[] = []
    for (const call of calls) {
      const settled = settle(call)
      const done = isThenable(settled) ? await settled : settled
      answers.push(done)
      if (order === 'until-veto' && done.ok && isVeto(done.value)) break
    }
    return answers
  }
  port.on('message', (message: HostDown) => {
    switch (message.t) {
      case 'seat': {
        const occupant: Occupant = { slot: message.slot, plugin: message.data.plugin, timers: new Set() }
        occupants.set(message.slot, occupant)
        byName.set(occupant.plugin, occupant)
        occupant.seated = runPlugin(modules, {
          port: message.port,
          data: message.data,
          enter: (fn) => enter(occupant, fn),
          importer,
          importing,
          batch,
        })
        return
      }
      case 'drop': {
        const occupant = occupants.get(message.slot)
        if (!occupant) return
        occupants.delete(message.slot)
        if (byName.get(occupant.plugin) === occupant) byName.delete(occupant.plugin)
        occupant.seated?.forget()
        for (const timer of occupant.timers) clearTimer(timer)
        occupant.timers.clear()
        return
      }
    }
  })
}

const real = {
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  setImmediate: globalThis.setImmediate,
  clearTimeout: globalThis.clearTimeout,
  clearInterval: globalThis.clearInterval,
  clearImmediate: globalThis.clearImmediate,
}

function clearTimer(timer: NodeJS.Timeout | NodeJS.Immediate): void {
  // An Immediate has its callback as `_onImmediate`; a Timeout (an interval's too) as `_onTimeout`.
  if ('_onImmediate' in timer) real.clearImmediate(timer)
  else real.clearTimeout(timer)
}

/**
 * Makes the timer functions (the globals, and `node:timers`'s) remember which plugin set each
 * timer (the plugin whose code runs then) and keep it among that plugin's timers until it fires
 * or is cleared, so that a dropped plugin's timers can be cleared. Timers set outside any
 * plugin's code are left as they are. (`timers/promises` is not tracked: a plugin's sleep ends on
 * its own.)
 */
function trackTimers(current: AsyncLocalStorage<Occupant>): void {
  type Timer = (NodeJS.Timeout | NodeJS.Immediate) & { [OWNER]?: Occupant }
  const own = (timer: Timer, occupant: Occupant): Timer => {
    timer[OWNER] = occupant
    occupant.timers.add(timer)
    return timer
  }
  const release = (timer: unknown) => {
    if (timer && typeof timer === 'object') (timer as Timer)[OWNER]?.timers.delete(timer as Timer)
  }
  const wrap = <F extends (...args: never[]) => unknown>(fn: F, wrapped: F): F => {
    const custom: unknown = Reflect.get(fn, promisify.custom)
    if (custom) Object.defineProperty(wrapped, promisify.custom, { value: custom })
    return wrapped
  }
  const tracked = {
    setTimeout: wrap(real.setTimeout, ((callback: unknown, ms?: number, ...args: unknown[]) => {
      const occupant = current.getStore()
      if (!occupant || typeof callback !== 'function') return real.setTimeout(callback as () => void, ms, ...args)
      const timer: Timer = real.setTimeout(() => {
        occupant.timers.delete(timer)
        callback(...args)
      }, ms)
      return own(timer, occupant)
    }) as typeof setTimeout),
    setInterval: wrap(real.setInterval, ((callback: unknown, ms?: number, ...args: unknown[]) => {
      const occupant = current.getStore()
      if (!occupant || typeof callback !== 'function') return real.setInterval(callback as () => void, ms, ...args)
      return own(
        real.setInterval(() => callback(...args), ms),
        occupant,
      )
    }) as typeof setInterval),
    setImmediate: wrap(real.setImmediate, ((callback: unknown, ...args: unknown[]) => {
      const occupant = current.getStore()
      if (!occupant || typeof callback !== 'function')
        return (real.setImmediate as (fn: unknown, ...rest: unknown[]) => NodeJS.Immediate)(callback, ...args)
      const timer: Timer = real.setImmediate(() => {
        occupant.timers.delete(timer)
        callback(...args)
      })
      return own(timer, occupant)
    }) as typeof setImmediate),
    clearTimeout: (timer: unknown) => {
      release(timer)
      real.clearTimeout(timer as NodeJS.Timeout)
    },
    clearInterval: (timer: unknown) => {
      release(timer)
      real.clearInterval(timer as NodeJS.Timeout)
    },
    clearImmediate: (timer: unknown) => {
      release(timer)
      real.clearImmediate(timer as NodeJS.Immediate)
    },
  }
  for (const [name, fn] of Object.entries(tracked)) {
    Reflect.set(globalThis, name, fn)
    Reflect.set(timersModule, name, fn)
  }
}
