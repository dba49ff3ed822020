import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads'
import { reasonOf, SmError } from '../../../kernel'
import { memoryReport, watchMemory } from './memory-watch'
import { BLAME, BLAME_SLOTS, type HostData, type HostDown, type ThreadData } from './protocol'
import { startPluginWorker, workerFault } from './worker'

/** A plugin seated in a plugin thread, as that thread's host sees it (ThreadedPlugin). */
export interface Tenant {
  readonly name: string
  /** Whether it keeps the process alive (false once it is only draining). */
  readonly holds: boolean
  /** What its code was running, for a fault's message. */
  where(): string
  /** The thread ended by this plugin's fault: it ends with `error`, a strike. */
  faulted(error: SmError, said?: string): void
  /** The thread ended by another plugin's fault (`by`): it ends, and is started again without a strike. */
  displaced(by: string): void
}

/** A tenant's place in its thread: its own port, and how it leaves. */
export interface Place {
  readonly port: MessagePort
  /** What the thread knows the plugin by. */
  readonly slot: number
  readonly host: PluginHost
  /** Leaves the thread (unloaded); the thread ends once no plugin is left in it. */
  leave(): Promise<void>
}

type Fault = (plugin: string, where: string) => SmError

/** The errors a displaced plugin's calls and start failed with (isDisplacement). */
const displacements = new WeakSet<object>()

/** Marks `error` as what a plugin displaced by another's fault ended with. */
export function markDisplacement(error: SmError): SmError {
  displacements.add(error)
  return error
}

/** Whether `error` is that of a plugin ended by another's fault in its thread (it is started again, not at fault). */
export function isDisplacement(error: unknown): boolean {
  return typeof error === 'object' && error !== null && displacements.has(error)
}

/** What the log adds to the timeout of a plugin whose code held its thread. */
const HELD = ' It held its thread (a loop), so the thread was ended; the plugins beside it there start again.'

/** What bounds a plugin thread: its heap, its memory outside the heap, how long code may hold it. */
export interface HostLimits {
  readonly memoryMb: number
  readonly externalMb: number
  /** plugins.hook_timeout_ms: the longest one piece of plugin code may hold the thread. */
  readonly hookMs: number
  /** plugins.import_timeout_s, in ms: the same while a plugin is imported. */
  readonly importMs: number
}

/**
 * A plugin thread in the manager (docs/architecture.md, "Plugins in threads"): the worker, and
 * the plugins seated in it, each with a port of its own. When the thread ends by a fault (a loop:
 * one piece of plugin code holding it past the hook timeout, found by its watchdog or by a call
 * that timed out; its heap or its memory outside the heap outgrown, process.exit, an uncaught
 * error, a message on the thread's own port), the plugin the thread blames
 * (host-thread.ts) takes the fault, a strike; every other plugin in it is ended and started
 * again, without one. A thread with one plugin is what plugins.isolation 'thread' gives each.
 */
export class PluginHost {
  readonly #worker: Worker
  readonly #blame = new Int32Array(new SharedArrayBuffer(BLAME_SLOTS * Int32Array.BYTES_PER_ELEMENT))
  readonly #tenants = new Map<number, Tenant>()
  readonly #unwatch: () => void
  readonly #watchdog: NodeJS.Timeout
  #nextSlot = 1
  #ended = false

  constructor(entry: string, name: string, limits: HostLimits) {
    const report = memoryReport()
    const data: HostData = { host: true, memory: report, blame: this.#blame }
    const worker = startPluginWorker(entry, name, data, limits.memoryMb)
    this.#worker = worker
    // Nothing of ours is posted on the thread's own port: only a plugin's code can have.
    worker.on('message', (message: unknown) =>
      this.#end(BLAME.current, (plugin, where) => {
        const what = reasonOf((message as { t?: unknown } | null)?.t ?? message)
        return new SmError('SM_ERR_PLUGIN_CRASHED', {
          plugin,
          where,
          reason: `it posted a message the manager cannot take on its thread's own port (${what})`,
        })
      }),
    )
    worker.on('error', (error: Error & { code?: string }) =>
      this.#end(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? BLAME.current : BLAME.crashed, (plugin, where) =>
        workerFault(error, plugin, where, limits.memoryMb),
      ),
    )
    worker.on('exit', (code) =>
      this.#end(BLAME.exited, (plugin, where) => new SmError('SM_ERR_PLUGIN_EXITED', { plugin, where, code })),
    )
    this.#unwatch = watchMemory({
      report,
      externalMb: limits.externalMb,
      heapMb: limits.memoryMb,
      outgrew: async (mb) => {
        const exited = new Promise((resolve) => worker.once('exit', resolve))
        this.#end(
          BLAME.current,
          (plugin, where) =>
            new SmError('SM_ERR_PLUGIN_EXTERNAL_MEMORY', { plugin, where, mb, limit: limits.externalMb }),
        )
        await exited
      },
    })
    this.#watchdog = this.#watch(limits)
  }

  /**
   * Ends the thread when one piece of plugin code holds it longer than the hook timeout (or, while
   * a plugin is imported, the import's): no beat of its free loop and no entry into plugin code
   * for that long, counted in this thread's own ticks (a pause of the whole process is one tick).
   * A thread that works through many plugins' hooks, each within the timeout, is not held.
   */
  #watch(limits: HostLimits): NodeJS.Timeout {
    const tick = Math.max(25, Math.min(250, Math.floor(limits.hookMs / 4)))
    let last = this.progress()
    let stalled = 0
    const timer = setInterval(() => {
      const now = this.progress()
      // Not started yet (it beats once its own code runs), or moving on.
      if (now === 0 || now !== last) {
        last = now
        stalled = 0
        return
      }
      stalled++
      const importing = Atomics.load(this.#blame, BLAME.importing) > 0
      const ms = importing ? limits.importMs : limits.hookMs
      if (stalled * tick < ms) return
      this.#end(BLAME.current, (plugin, where) => new SmError('SM_ERR_PLUGIN_TIMEOUT', { plugin, where, ms }), HELD)
    }, tick)
    timer.unref()
    return timer
  }

  /** A count that moves while the thread's loop is free or it enters plugin code (unchanged: held by one piece of code). */
  progress(): number {
    return Atomics.load(this.#blame, BLAME.beat) + Atomics.load(this.#blame, BLAME.entries)
  }

  /** Whether plugins may still be seated here (it has not ended). */
  get open(): boolean {
    return !this.#ended
  }

  /** Seats a plugin: its code runs here from now, over the port returned. */
  seat(tenant: Tenant, data: ThreadData): Place {
    const slot = this.#nextSlot++
    const { port1, port2 } = new MessageChannel()
    this.#tenants.set(slot, tenant)
    const message: HostDown = { t: 'seat', slot, port: port2, data }
    this.#worker.postMessage(message, [port2])
    // The thread keeps the process alive (hold), not each port.
    port1.unref()
    this.hold()
    return { port: port1, slot, host: this, leave: () => this.#leave(slot) }
  }

  /** Keeps the process alive while a plugin here is not only draining. */
  hold(): void {
    if (this.#ended) return
    if ([...this.#tenants.values()].some((tenant) => tenant.holds)) this.#worker.ref()
    else this.#worker.unref()
  }

  /**
   * A call of `prober` (`what`) timed out and the thread answers no ping: it holds its loop. It is
   * ended, blaming the plugin whose code it last entered (else `prober`).
   */
  stuck(prober: Tenant, ms: number, what: string): void {
    this.#end(
      BLAME.current,
      (plugin, where) =>
        new SmError('SM_ERR_PLUGIN_TIMEOUT', { plugin, where: plugin === prober.name ? what : where, ms }),
      HELD,
      prober,
    )
  }

  async #leave(slot: number): Promise<void> {
    if (!this.#tenants.delete(slot) || this.#ended) return
    if (this.#tenants.size > 0) {
      const message: HostDown = { t: 'drop', slot }
      this.#worker.postMessage(message)
      this.hold()
      return
    }
    this.#ended = true
    this.#unwatch()
    clearInterval(this.#watchdog)
    await this.#worker.terminate()
  }

  /**
   * The thread ended by a fault (once): the tenant it blames (by `slot`, else the code it last
   * entered, else `fallback`, else the only one) takes the fault; the others are displaced. With
   * no one to blame among several, each takes it.
   */
  #end(slot: number, fault: Fault, said = '', fallback?: Tenant): void {
    if (this.#ended) return
    this.#ended = true
    this.#unwatch()
    clearInterval(this.#watchdog)
    const tenants = new Map(this.#tenants)
    this.#tenants.clear()
    const blamed = Atomics.load(this.#blame, slot) || Atomics.load(this.#blame, BLAME.current)
    const only = tenants.size === 1 ? [...tenants.values()][0] : undefined
    const guilty = tenants.get(blamed) ?? (fallback && [...tenants.values()].includes(fallback) ? fallback : only)
    void this.#worker.terminate()
    // The others first: they are started again before the fault is handled (and recorded), so
    // whoever learns of the fault finds them back.
    if (guilty) for (const tenant of tenants.values()) if (tenant !== guilty) tenant.displaced(guilty.name)
    for (const tenant of guilty ? [guilty] : tenants.values()) tenant.faulted(fault(tenant.name, tenant.where()), said)
  }
}

/**
 * Where plugins' threads come from: with plugins.isolation 'shared', one thread for every plugin
 * with the same heap limit (a new one once it ended); with 'thread', or for a plugin that declares
 * secret settings (plugins in one thread share its memory), a thread of its own.
 */
export class HostPool {
  readonly #entry: string
  readonly #shared = new Map<number, PluginHost>()

  constructor(entry: string) {
    this.#entry = entry
  }

  host(plugin: string, limits: HostLimits, own: boolean): PluginHost {
    if (own) return new PluginHost(this.#entry, `plugin:${plugin}`, limits)
    const current = this.#shared.get(limits.memoryMb)
    if (current?.open) return current
    const host = new PluginHost(this.#entry, 'plugins', limits)
    this.#shared.set(limits.memoryMb, host)
    return host
  }
}
