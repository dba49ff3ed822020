import { EventEmitter2 } from 'eventemitter2'
import { Catalogue } from './catalogue'
import { Chain, currentContext, runInContext } from './context'
import { DispatchReport } from './dispatch-report'
import type { Disposable } from './disposable'
import { SmError, toSmError } from './errors'
import { listenerError } from './listener-error'
import type { CommandName, CommandPayload, CommandReply, CustomEventName, EventName, PayloadOf } from './maps'
import { isThenable, timeBox } from './time-box'
import { isVeto } from './veto'

/** What a listener learns about the event besides its payload. */
export interface EventMeta {
  readonly event: string
  /** Who started the causal chain: `core`, `cli:<user>`, `http:<user>`, `plugin:<name>`. */
  readonly actor: string
  /** The event's sequence number in the event log, when it is a recorded fact. */
  readonly seq: number | undefined
  /**
   * True when an event with the same identity (see `setIdentifier`) is already being dispatched
   * further up this causal chain: a listener that does not want loops skips it.
   */
  readonly reentrant?: boolean
}

/** Names one occurrence of an event, e.g. `before_setting_update|custom.x` (default: the event name). */
export type Identifier = (event: string, payload: unknown) => string

export type Listener<P = unknown> = (payload: P, meta: EventMeta) => unknown

export interface ListenOptions {
  /** Who registered the listener; failures are attributed to it. */
  readonly owner: string
  /** How long an async listener may take before it is abandoned (default: the bus's). */
  readonly timeoutMs?: number
  /**
   * Wants to know about loops (`meta.reentrant`). Only events with such listeners pay for
   * tracking the causal chain.
   */
  readonly guarded?: boolean
  /** Its batch, if it can be called together with its neighbours of the same batch (ListenerBatch). */
  readonly batch?: BatchMember
}

/** What one call of a batch answers for each of its listeners: its answer, or why it failed. */
export type BatchOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown }

/**
 * How a batch runs its listeners: in turn, in turn until the first veto (the rest not called),
 * or all at once (a round side by side).
 */
export type BatchOrder = 'in-turn' | 'until-veto' | 'together'

/**
 * Listeners that one call can run together (plugins in one worker thread: one crossing instead
 * of one each). Neighbouring listeners of one batch in a round are handed to `run` together,
 * which runs each as its listener would, in `order`; the outcomes come back in the members'
 * order (none for those it did not reach).
 */
export interface ListenerBatch {
  run(
    members: readonly unknown[],
    payload: unknown,
    meta: EventMeta,
    order: BatchOrder,
  ): Promise<readonly BatchOutcome[]>
}

/** A listener's place in a batch: the batch, and what the batch knows it by. */
export interface BatchMember {
  readonly batch: ListenerBatch
  readonly member: unknown
}

export interface EmitOptions {
  readonly actor?: string
  readonly timeoutMs?: number
  /**
   * Ends the round at the first veto (`{ cancel: true }`): the later listeners are not called (an
   * action's `before_*` stops at its first veto, so no later hook acts on what will not happen).
   */
  readonly untilVeto?: boolean
  /**
   * Calls every listener at once, in registration order, and then waits for them all (each under
   * its timeout): for hooks that cannot veto (`after_*`, custom events), so that listeners in
   * other threads work side by side. Synchronous listeners run exactly as in turn.
   */
  readonly parallel?: boolean
}

/** Persists facts before listeners see them (the event log registers one). */
export interface Recorder {
  accepts(event: string): boolean
  /** Appends the fact and returns its sequence number; a rejection aborts the emit. */
  record(event: string, payload: unknown, actor: string): Promise<number>
}

/**
 * Makes an event's listeners ready before an emit dispatches it: answers a promise for an event
 * whose listeners are not registered yet (a one-shot command's plugins service loading plugins on
 * their first need), nothing otherwise. A relayed event does not ask it: relays reach a long-running
 * manager, whose plugins are loaded at start.
 */
export type Preparer = (event: string) => Promise<void> | undefined

export interface RequestMeta {
  readonly command: string
  readonly actor: string
}

export interface RequestOptions {
  readonly actor?: string
  readonly timeoutMs?: number
}

export type CommandHandler<K extends CommandName> = (
  payload: CommandPayload<K>,
  meta: RequestMeta,
) => CommandReply<K> | Promise<CommandReply<K>>

interface Entry {
  readonly owner: string
  readonly timeoutMs: number | undefined
  readonly guarded: boolean
  readonly fn: Listener<never>
  readonly batch: BatchMember | undefined
}

interface HandlerEntry {
  readonly owner: string
  readonly fn: (payload: unknown, meta: RequestMeta) => unknown
}

type Token = () => void

/** The listeners an event name resolves to, cached until a registration changes. */
interface Resolved {
  readonly entries: readonly Entry[]
  readonly owners: readonly string[]
  readonly guarded: boolean
}

/**
 * The kernel bus. Events (`emit`) go to any number of listeners, one after another in
 * registration order; async listeners are awaited with a timeout, and every failure is
 * reported with its owner instead of thrown. Commands (`request`) go to exactly one handler
 * and return its reply. Both ride on EventEmitter2 (delimiter `:`, wildcards on); the bus keeps
 * a table of resolved listeners per name so dispatch never walks the wildcard tree twice.
 */
export class Bus {
  readonly #events = new EventEmitter2({ wildcard: true, delimiter: ':', maxListeners: 0 })
  readonly #commands = new EventEmitter2({ wildcard: false, maxListeners: 0 })
  readonly #entries = new WeakMap<Token, Entry>()
  readonly #handlers = new WeakMap<Token, HandlerEntry>()
  readonly #table = new Map<string, Resolved>()
  // Namespace (the part of a name or an owner before ':') → owner → live registrations, for
  // `namespaceOwners`: who uses a namespace is known from what registers, not from a list.
  readonly #namespaces = new Map<string, Map<string, number>>()
  readonly #timeoutMs: number
  readonly #checked: boolean
  /** What its kernel's services declared: the messages it checks, who owns which name. */
  readonly catalogue: Catalogue
  #recorder: Recorder | undefined
  #prepare: Preparer | undefined
  #identify: Identifier = (event) => event

  /**
   * `checkMessages`: check every request, reply and declared event against its contract, not
   * only those that cross a boundary (the test build does: `SM_CHECK_BUS=1`). `catalogue`: its
   * kernel's (default an empty one of its own).
   */
  constructor(options: { listenerTimeoutMs?: number; checkMessages?: boolean; catalogue?: Catalogue } = {}) {
    this.catalogue = options.catalogue ?? new Catalogue()
    this.#timeoutMs = options.listenerTimeoutMs ?? 10_000
    this.#checked = options.checkMessages ?? process.env.SM_CHECK_BUS === '1'
  }

  /** Listens to an event (a name from the EventMap, a custom `ns:event`, or a wildcard pattern). */
  on<K extends EventName>(name: K, listener: Listener<PayloadOf<K>>, options: ListenOptions): Disposable
  on(name: CustomEventName | '*' | '**', listener: Listener, options: ListenOptions): Disposable
  on(name: string, listener: Listener<never>, options: ListenOptions): Disposable {
    const token: Token = () => {}
    this.#entries.set(token, {
      owner: options.owner,
      timeoutMs: options.timeoutMs,
      guarded: options.guarded ?? false,
      fn: listener,
      batch: options.batch,
    })
    this.#events.on(name, token)
    this.#table.clear()
    return this.#registered(name, options.owner, () => {
      this.#events.off(name, token)
      this.#table.clear()
    })
  }

  /** Registers the one handler of a command. */
  handle<K extends CommandName>(name: K, handler: CommandHandler<K>, options: { owner: string }): Disposable {
    const existing = this.#handlerOf(name)
    if (existing) {
      throw new SmError('SM_ERR_KERNEL_DUPLICATE_HANDLER', {
        command: name,
        owner: options.owner,
        existing: existing.owner,
      })
    }
    const token: Token = () => {}
    this.#handlers.set(token, { owner: options.owner, fn: handler as HandlerEntry['fn'] })
    this.#commands.on(name, token)
    return this.#registered(name, options.owner, () => void this.#commands.off(name, token))
  }

  /**
   * The owners that hold a listener or a command handler in namespace `ns`: one named `ns:…`,
   * or registered by an owner named `ns` or `ns:…` (the `events` service uses `events`).
   */
  namespaceOwners(ns: string): string[] {
    const owners = this.#namespaces.get(ns)
    return owners ? [...owners.keys()] : []
  }

  // Counts a registration in its namespaces; the disposable undoes it once.
  #registered(name: string, owner: string, off: () => void): Disposable {
    this.#count(name, owner, 1)
    let live = true
    return {
      dispose: () => {
        if (!live) return
        live = false
        off()
        this.#count(name, owner, -1)
      },
    }
  }

  #count(name: string, owner: string, delta: number): void {
    const colon = name.indexOf(':')
    const ownNs = owner.split(':', 1)[0] as string
    const named = colon > 0 ? name.slice(0, colon) : undefined
    for (const ns of named === undefined || named === ownNs ? [ownNs] : [ownNs, named]) {
      const owners = this.#namespaces.get(ns) ?? new Map<string, number>()
      const count = (owners.get(owner) ?? 0) + delta
      if (count > 0) owners.set(owner, count)
      else owners.delete(owner)
      if (owners.size > 0) this.#namespaces.set(ns, owners)
      else this.#namespaces.delete(ns)
    }
  }

  /** Installs the recorder that persists facts before dispatch (one at a time). */
  setRecorder(recorder: Recorder | undefined): void {
    this.#recorder = recorder
  }

  /** Installs what readies an event's listeners before it is dispatched (one at a time). */
  setPreparer(prepare: Preparer | undefined): void {
    this.#prepare = prepare
  }

  /** Installs how event identities are computed for the re-entrancy guard. */
  setIdentifier(identify: Identifier | undefined): void {
    this.#identify = identify ?? ((event) => event)
  }

  hasListeners(name: string): boolean {
    return this.#resolve(name).entries.length > 0
  }

  /** The commands that have a handler now. */
  commandNames(): string[] {
    return this.#commands.eventNames() as string[]
  }

  hasHandler(name: string): boolean {
    return this.#handlerOf(name) !== undefined
  }

  /**
   * Emits an event. A fact is recorded first (a recording failure rejects the emit: nothing
   * was stored and no listener ran); then each listener runs in turn. Resolves to the report.
   */
  emit<K extends EventName>(name: K, payload: PayloadOf<K>, options?: EmitOptions): Promise<DispatchReport>
  emit(name: CustomEventName, payload: unknown, options?: EmitOptions): Promise<DispatchReport>
  emit(name: string, payload: unknown, options?: EmitOptions): Promise<DispatchReport> {
    if (this.#checked) {
      try {
        this.catalogue.checkEvent(name, payload)
      } catch (error) {
        return Promise.reject(error)
      }
    }
    const ready = this.#prepare?.(name)
    if (ready) return ready.then(() => this.#emitReady(name, payload, options))
    return this.#emitReady(name, payload, options)
  }

  #emitReady(name: string, payload: unknown, options?: EmitOptions): Promise<DispatchReport> {
    const actor = options?.actor ?? currentContext().actor
    if (this.#recorder?.accepts(name)) {
      return this.#recorder
        .record(name, payload, actor)
        .then((seq) => this.#guarded(name, payload, actor, seq, options))
    }
    return this.#guarded(name, payload, actor, undefined, options)
  }

  /**
   * Delivers an event that was emitted, and recorded if it is a fact, elsewhere (another host's
   * bus, relayed by a bridge): its listeners run here as they would for a local emit, as
   * `actor`, with the sequence number it has in this log (if any); nothing is recorded again.
   * Only a scope allowed to relay (a service that declares `relays`) reaches it.
   */
  relay(name: string, payload: unknown, actor: string, seq?: number): Promise<DispatchReport> {
    if (this.#checked) {
      try {
        this.catalogue.checkEvent(name, payload)
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return this.#guarded(name, payload, actor, seq, { actor })
  }

  // Runs the dispatch in a causal context that contains this event's identity, so anything the
  // listeners cause can tell it is re-entering this very event.
  #guarded(name: string, payload: unknown, actor: string, seq: number | undefined, options?: EmitOptions) {
    const resolved = this.#resolve(name)
    if (!resolved.guarded) {
      const meta: EventMeta = { event: name, actor, seq }
      const dispatch = () => this.#dispatch(resolved, name, payload, meta, options)
      return options?.actor ? runInContext({ actor }, dispatch) : dispatch()
    }
    const identity = this.#identify(name, payload)
    const { chain } = currentContext()
    const meta: EventMeta = { event: name, actor, seq, reentrant: chain?.has(identity) ?? false }
    return runInContext({ actor, chain: new Chain(identity, chain) }, () =>
      this.#dispatch(resolved, name, payload, meta, options),
    )
  }

  // Runs synchronously until a listener returns a promise, so an emit to synchronous
  // listeners costs one loop and no timer; the rest continues in #dispatchAsync.
  #dispatch(
    { entries, owners }: Resolved,
    name: string,
    payload: unknown,
    meta: EventMeta,
    options?: EmitOptions,
  ): Promise<DispatchReport> {
    const report = new DispatchReport(name, meta.seq, owners)
    let waiting: Promise<void>[] | undefined
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as Entry
      const end = entry.batch ? batchEnd(entries, index) : index + 1
      if (end > index + 1 && options?.parallel) {
        waiting ??= []
        waiting.push(this.#runBatch(entries, index, end, payload, meta, report, 'together').then(() => {}))
        index = end - 1
        continue
      }
      if (end > index + 1) return this.#dispatchAsync(entries, index, undefined, payload, meta, report, options)
      try {
        const value = (entry.fn as Listener)(payload, meta)
        if (isThenable(value) && options?.parallel) {
          waiting ??= []
          waiting.push(this.#settle(entry, index, value, meta, report, options))
          continue
        }
        if (isThenable(value)) return this.#dispatchAsync(entries, index, value, payload, meta, report, options)
        report.succeeded(index, value)
        if (options?.untilVeto && isVeto(value)) break
      } catch (error) {
        report.failed(index, listenerError(entry.owner, name, error))
      }
    }
    return waiting ? Promise.all(waiting).then(() => report) : Promise.resolve(report)
  }

  /** Waits for one listener's answer under its timeout, into the report. */
  async #settle(
    entry: Entry,
    index: number,
    pending: PromiseLike<unknown>,
    meta: EventMeta,
    report: DispatchReport,
    options: EmitOptions,
  ): Promise<void> {
    try {
      report.succeeded(index, await this.#timed(entry, pending, meta.event, options))
    } catch (error) {
      report.failed(index, listenerError(entry.owner, meta.event, error))
    }
  }

  /** A listener's answer to come, under its timeout (its own, the emit's, the bus's). */
  #timed(entry: Entry, pending: PromiseLike<unknown>, event: string, options?: EmitOptions): Promise<unknown> {
    const ms = entry.timeoutMs ?? options?.timeoutMs ?? this.#timeoutMs
    return timeBox(pending, ms, () => new SmError('SM_ERR_KERNEL_LISTENER_TIMEOUT', { owner: entry.owner, event, ms }))
  }

  /** Goes on from listener `from` (whose answer is `pending`, or, undefined, which is yet to be called), in turn. */
  async #dispatchAsync(
    entries: readonly Entry[],
    from: number,
    pending: PromiseLike<unknown> | undefined,
    payload: unknown,
    meta: EventMeta,
    report: DispatchReport,
    options?: EmitOptions,
  ): Promise<DispatchReport> {
    let value: unknown = pending
    for (let index = from; index < entries.length; index++) {
      const entry = entries[index] as Entry
      const called = index === from && pending !== undefined
      const end = !called && entry.batch ? batchEnd(entries, index) : index + 1
      if (end > index + 1) {
        const order = options?.untilVeto ? 'until-veto' : 'in-turn'
        if (await this.#runBatch(entries, index, end, payload, meta, report, order)) break
        index = end - 1
        continue
      }
      try {
        if (!called) value = (entry.fn as Listener)(payload, meta)
        if (isThenable(value)) value = await this.#timed(entry, value, meta.event, options)
        report.succeeded(index, value)
        if (options?.untilVeto && isVeto(value)) break
      } catch (error) {
        report.failed(index, listenerError(entry.owner, meta.event, error))
      }
    }
    return report
  }

  /** Runs listeners `from` to `end` (one batch's) in one call of it; resolves to whether the round ends (a veto). */
  async #runBatch(
    entries: readonly Entry[],
    from: number,
    end: number,
    payload: unknown,
    meta: EventMeta,
    report: DispatchReport,
    order: BatchOrder,
  ): Promise<boolean> {
    const run = entries.slice(from, end)
    let outcomes: readonly BatchOutcome[]
    try {
      const { batch } = (run[0] as Entry).batch as BatchMember
      outcomes = await batch.run(
        run.map((entry) => entry.batch?.member),
        payload,
        meta,
        order,
      )
    } catch (error) {
      outcomes = run.map(() => ({ ok: false, error }))
    }
    for (const [offset, outcome] of outcomes.entries()) {
      const entry = run[offset] as Entry
      if (!outcome.ok) report.failed(from + offset, listenerError(entry.owner, meta.event, outcome.error))
      else {
        report.succeeded(from + offset, outcome.value)
        if (order === 'until-veto' && isVeto(outcome.value)) return true
      }
    }
    return false
  }

  /** Sends a command to its one handler and resolves to the reply. Handler errors reject as SmError. */
  async request<K extends CommandName>(
    name: K,
    payload: CommandPayload<K>,
    options?: RequestOptions,
  ): Promise<CommandReply<K>> {
    const handler = this.#handlerOf(name)
    if (!handler) throw new SmError('SM_ERR_KERNEL_NO_HANDLER', { command: name })
    // Inside a process, a command nobody declared is a test's or an embedder's own (the boundaries refuse it).
    if (this.#checked && this.catalogue.isDeclaredCommand(name)) this.catalogue.checkCommand(name, payload)
    const actor = options?.actor ?? currentContext().actor
    const call = () => handler.fn(payload, { command: name, actor })
    let reply: unknown
    try {
      const pending = options?.actor ? runInContext({ actor }, call) : call()
      const ms = options?.timeoutMs
      reply =
        ms === undefined || !isThenable(pending)
          ? await pending
          : await timeBox(pending, ms, () => new SmError('SM_ERR_KERNEL_REQUEST_TIMEOUT', { command: name, ms }))
    } catch (error) {
      throw toSmError(error)
    }
    if (this.#checked) this.catalogue.checkReply(name, reply)
    return reply as CommandReply<K>
  }

  #resolve(name: string): Resolved {
    let resolved = this.#table.get(name)
    if (!resolved) {
      const tokens = this.#events.listeners(name) as Token[]
      const entries = tokens.flatMap((token) => this.#entries.get(token) ?? [])
      resolved = {
        entries,
        owners: entries.map((entry) => entry.owner),
        guarded: entries.some((entry) => entry.guarded),
      }
      this.#table.set(name, resolved)
    }
    return resolved
  }

  #handlerOf(name: string): HandlerEntry | undefined {
    const token = this.#commands.listeners(name)[0] as Token | undefined
    return token ? this.#handlers.get(token) : undefined
  }
}

/** Where the batch that listener `from` belongs to ends: the first later listener not of it. */
function batchEnd(entries: readonly Entry[], from: number): number {
  const batch = entries[from]?.batch?.batch
  let end = from + 1
  while (end < entries.length && entries[end]?.batch?.batch === batch) end++
  return end
}
