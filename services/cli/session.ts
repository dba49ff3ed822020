import { userInfo } from 'node:os'
import type { CustomEventName, Kernel, ServiceReport } from '../../kernel'
import type { Disposable } from '../../kernel/disposable'
import { SmError } from '../../kernel/errors'
import type { CommandName, CommandPayload, CommandReply } from '../../kernel/maps'
import { openDataDir, resolveDataDir } from '../../lib/data-dir'
import type { HostOptions } from '../bridge/contract'
import type { TaskContext } from '../tasks/contract'
import { type BuiltinService, type LogLevel, type ManagerClient, wiring } from './wiring'

export type { LogLevel, ManagerClient }

/** Where a command's requests go: the running manager over the bridge, or one booted in this process. */
export type Target =
  | { readonly kind: 'remote'; readonly client: ManagerClient }
  | { readonly kind: 'local'; readonly kernel: Kernel }

/** How an in-process manager boots: a one-shot one, the daemon (`start`), or a host agent's (`agent start --nats`). */
export interface BootOptions {
  readonly daemon?: boolean
  readonly nats?: string
  /** A host agent joined to a manager on the broker: no web server, no plugins (they run in the manager). */
  readonly host?: HostOptions
}

export interface SessionOptions {
  /** Console log level while an in-process manager runs; one-shot commands only show problems. */
  readonly consoleLevel?: LogLevel
  /** Whether an in-process manager loads the plugins (their hooks veto actions, their listeners receive events). */
  readonly loadsPlugins?: boolean
  /** Always an in-process manager, even while one runs (a plugin command marked `static local = true`). */
  readonly local?: boolean
  /**
   * The built-in services a one-shot command uses (with those they depend on): an in-process
   * manager runs only them, and only declares the others. Default: all.
   */
  readonly services?: readonly BuiltinService[]
}

/**
 * A CLI process's link to the manager of its data directory: the running manager over the bus
 * bridge, or, when none runs, the built-in services booted in this process on first use. Every
 * command has one; the interactive menu shares one with the commands it invokes, so they reuse
 * its connection (or its in-process manager) instead of opening their own.
 */
export class CliSession {
  /**
   * Set by bin/run.js: this process is the command's own, so a manager booted in it guards its
   * loop and its crashes (the watchdog ends the process when plugin code holds its loop). A command
   * run inside another program (a test's in-process commands, an embedder) leaves that program's
   * process to it: its manager has no watchdog.
   */
  static ownsProcess = false
  static #shared: CliSession | undefined
  readonly dataDir: string
  readonly #options: SessionOptions
  #target: Promise<Target> | undefined
  /** What each service reported when an in-process manager booted. */
  bootReport: ServiceReport[] = []

  constructor(options: SessionOptions = {}, dataDir = resolveDataDir()) {
    this.#options = options
    this.dataDir = dataDir
  }

  /** The session commands use while `work` runs (the menu's), instead of their own. */
  static async sharing<T>(session: CliSession, work: () => Promise<T>): Promise<T> {
    CliSession.#shared = session
    try {
      return await work()
    } finally {
      CliSession.#shared = undefined
    }
  }

  static get shared(): CliSession | undefined {
    return CliSession.#shared
  }

  /**
   * The running manager of `dataDir`, as its client; undefined when none runs (this never boots
   * one). For commands about the manager itself: status, web status, web stop, start --detached.
   */
  static running(dataDir: string): Promise<ManagerClient | undefined> {
    return wiring().connect(dataDir)
  }

  /** `cli:<os user>`: who a command acts as. */
  static get actor(): string {
    try {
      return `cli:${userInfo().username}`
    } catch {
      return 'cli:unknown'
    }
  }

  /** The running manager, or an in-process one booted on first use. */
  target(): Promise<Target> {
    this.#target ??= (async (): Promise<Target> => {
      if (!this.#options.local) this.#checkDataDir()
      const client = this.#options.local ? undefined : await wiring().connect(this.dataDir)
      return client ? { kind: 'remote', client } : { kind: 'local', kernel: await this.#boot({}) }
    })()
    return this.#target
  }

  // A client checks too: the manager made the directory private when it started, but it may
  // have been opened since. An in-process manager checks when it is created.
  #checkDataDir(): void {
    const { tightened } = openDataDir(this.dataDir)
    if (tightened)
      process.stderr.write(
        `Warning: the data directory '${this.dataDir}' was open to other users (mode ${tightened}); it is now 0700\n`,
      )
  }

  /** Boots the built-in services in this process (loaded lazily: a client never needs them). */
  async boot(options: BootOptions): Promise<Kernel> {
    const kernel = this.#boot(options)
    this.#target = kernel.then((k) => ({ kind: 'local', kernel: k }))
    return kernel
  }

  async #boot(options: BootOptions): Promise<Kernel> {
    const kernel = wiring().createManager({
      dataDir: this.dataDir,
      consoleLevel: this.#options.consoleLevel ?? 'warn',
      // A one-shot command loads them when its action first needs them (a hook of theirs).
      loadPlugins: (this.#options.loadsPlugins ?? true) && (options.daemon ? true : 'on-demand'),
      daemon: options.daemon,
      nats: options.nats,
      host: options.host,
      ...(options.host ? { web: false, loadPlugins: false, defaultPlugins: false } : {}),
      oneShot: !options.daemon,
      ...(options.daemon || options.host ? {} : { only: this.#options.services }),
      watchdog: CliSession.ownsProcess,
    })
    this.bootReport = await kernel.start()
    return kernel
  }

  /** A command of the manager (running or in-process) as `actor`; a name known only at run time answers `unknown`. */
  request<K extends CommandName>(name: K, payload: CommandPayload<K>, actor: string): Promise<CommandReply<K>>
  request(name: string, payload: unknown, actor: string): Promise<unknown>
  async request(name: string, payload: unknown, actor: string): Promise<unknown> {
    const target = await this.target()
    if (target.kind === 'remote') return target.client.request(name, payload, actor)
    // The seam between names read at run time (a command line, a plugin's call) and the bus's
    // typed command map: the bus checks the payload against the command's schema itself.
    return target.kernel.bus.request(name as CommandName, payload as never, { actor })
  }

  /**
   * Runs a plugin command's function as a task of the in-process manager. A function cannot
   * travel to a running manager, so there the command needs a local one (SM_ERR_CLI_NEEDS_LOCAL).
   */
  async runTask(name: string, fn: (ctx: TaskContext) => Promise<unknown>): Promise<{ taskId: string }> {
    const target = await this.target()
    if (target.kind === 'remote')
      throw new SmError('SM_ERR_CLI_NEEDS_LOCAL', {
        command: 'this.api.runTask',
        reason: 'it hands the manager a function, which cannot travel to another process',
      })
    // Loaded here, not with the session: a contract brings zod, which a client command never needs.
    const { TASKS } = require('../tasks/contract') as typeof import('../tasks/contract')
    const { id, done } = target.kernel.registry.resolve(TASKS).run(name, fn)
    done.catch(() => {}) // recorded as tasks:finished
    return { taskId: id }
  }

  /** Receives `event` from the manager (running or in-process) until disposed or the session ends. */
  async subscribe(
    event: string,
    listener: (payload: unknown, meta: { event: string; actor: string }) => unknown,
    owner: string,
    options?: { timeoutMs?: number; guarded?: boolean },
  ): Promise<Disposable> {
    const target = await this.target()
    if (target.kind === 'remote') return target.client.on(event, (payload, meta) => void listener(payload, meta))
    return target.kernel.bus.on(event as CustomEventName, listener, { owner, ...options })
  }

  /** Ends this session when a command is done with it; the menu's shared one stays open for its next command. */
  async release(): Promise<void> {
    if (this !== CliSession.#shared) await this.close()
  }

  /** Disconnects, or stops the in-process manager. */
  async close(): Promise<void> {
    const target = this.#target
    this.#target = undefined
    const settled = await target?.catch(() => undefined)
    if (settled?.kind === 'remote') settled.client.close()
    if (settled?.kind === 'local') await settled.kernel.stop()
  }
}
