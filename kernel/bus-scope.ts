import type {
  Bus,
  CommandHandler,
  EmitOptions,
  Identifier,
  Listener,
  ListenOptions,
  Preparer,
  Recorder,
  RequestOptions,
} from './bus'
import type { Catalogue } from './catalogue'
import type { DispatchReport } from './dispatch-report'
import { type Disposable, DisposableStack } from './disposable'
import { SmError } from './errors'
import type { CommandName, CommandPayload, CommandReply, CustomEventName, EventName, PayloadOf } from './maps'

/**
 * The bus as one owner (a service or a plugin) sees it: everything it registers is attributed
 * to it and released by one `dispose()`, so stopping a service or unloading a plugin can never
 * leave a listener behind.
 */
export class BusScope implements Disposable {
  readonly owner: string
  /** The namespace its events must be in (a service's); undefined: a plugin's, custom events only. */
  readonly namespace: string | undefined
  readonly #bus: Bus
  readonly #registrations = new DisposableStack()
  /** Names this owner may emit, as checked once. */
  readonly #mayEmit = new Set<string>()
  #disposed = false
  #detach: (() => void) | undefined
  readonly #relays: boolean

  constructor(bus: Bus, owner: string, namespace?: string, options: { relays?: boolean } = {}) {
    this.#bus = bus
    this.owner = owner
    this.namespace = namespace
    this.#relays = options.relays === true
  }

  /**
   * A scope for something this owner runs (a plugin of the plugins service): attributed to
   * `owner`, released on its own or, at the latest, with this scope.
   */
  child(owner: string): BusScope {
    this.#assertLive()
    const child = new BusScope(this.#bus, owner, owner.startsWith('plugin:') ? undefined : this.namespace)
    const link = this.#registrations.add({ dispose: () => child.dispose() })
    child.#detach = () => this.#registrations.remove(link)
    return child
  }

  /** What the kernel's services declared (read-only here: a kernel records declarations when a service is added). */
  get catalogue(): Catalogue {
    return this.#bus.catalogue
  }

  /** Whether `dispose()` ran: a disposed scope refuses new registrations. */
  get disposed(): boolean {
    return this.#disposed
  }

  on<K extends EventName>(name: K, listener: Listener<PayloadOf<K>>, options?: Omit<ListenOptions, 'owner'>): Disposable
  on(name: CustomEventName | '*' | '**', listener: Listener, options?: Omit<ListenOptions, 'owner'>): Disposable
  on(name: string, listener: Listener<never>, options?: Omit<ListenOptions, 'owner'>): Disposable {
    this.#assertLive()
    const listenOptions = { owner: this.owner, ...options }
    return this.#registrations.add(this.#bus.on(name as CustomEventName, listener as Listener, listenOptions))
  }

  handle<K extends CommandName>(name: K, handler: CommandHandler<K>): Disposable {
    this.#assertLive()
    return this.#registrations.add(this.#bus.handle(name, handler, { owner: this.owner }))
  }

  /** Installs the bus's fact recorder until this scope is disposed. */
  setRecorder(recorder: Recorder): Disposable {
    this.#bus.setRecorder(recorder)
    return this.#registrations.add({ dispose: () => this.#bus.setRecorder(undefined) })
  }

  /** Installs what readies an event's listeners before it is dispatched, until this scope is disposed. */
  setPreparer(prepare: Preparer): Disposable {
    this.#bus.setPreparer(prepare)
    return this.#registrations.add({ dispose: () => this.#bus.setPreparer(undefined) })
  }

  /** Installs the bus's identity function for the re-entrancy guard until this scope is disposed. */
  setIdentifier(identify: Identifier): Disposable {
    this.#bus.setIdentifier(identify)
    return this.#registrations.add({ dispose: () => this.#bus.setIdentifier(undefined) })
  }

  emit<K extends EventName>(name: K, payload: PayloadOf<K>, options?: EmitOptions): Promise<DispatchReport>
  emit(name: CustomEventName, payload: unknown, options?: EmitOptions): Promise<DispatchReport>
  emit(name: string, payload: unknown, options?: EmitOptions): Promise<DispatchReport> {
    if (!this.#mayEmit.has(name)) {
      try {
        this.#bus.catalogue.assertMayEmit(this.namespace, name)
      } catch (error) {
        return Promise.reject(error)
      }
      this.#mayEmit.add(name)
    }
    return this.#bus.emit(name as CustomEventName, payload, options)
  }

  /**
   * Delivers an event emitted (and recorded) on another host's bus to this bus's listeners,
   * whoever owns its name; nothing is recorded (Bus.relay). Only for a service that declares
   * `relays` (the bridge of another host's events, the event log's ingest).
   */
  relay(name: string, payload: unknown, actor: string, seq?: number): Promise<DispatchReport> {
    if (!this.#relays)
      return Promise.reject(
        new SmError('SM_ERR_BUS_NOT_OWNER', { event: name, owner: 'its owner', sender: this.owner }),
      )
    return this.#bus.relay(name, payload, actor, seq)
  }

  request<K extends CommandName>(
    name: K,
    payload: CommandPayload<K>,
    options?: RequestOptions,
  ): Promise<CommandReply<K>> {
    return this.#bus.request(name, payload, options)
  }

  hasListeners(name: string): boolean {
    return this.#bus.hasListeners(name)
  }

  hasHandler(name: string): boolean {
    return this.#bus.hasHandler(name)
  }

  /** The owners registered in namespace `ns` (see `Bus.namespaceOwners`). */
  namespaceOwners(ns: string): string[] {
    return this.#bus.namespaceOwners(ns)
  }

  /** How many registrations this owner still holds. */
  get registrations(): number {
    return this.#registrations.size
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    this.#registrations.dispose()
    this.#detach?.()
  }

  #assertLive(): void {
    if (this.#disposed) throw new SmError('SM_ERR_KERNEL_SCOPE_DISPOSED', { owner: this.owner })
  }
}
