import type { BusScope } from './bus-scope'
import type { SmError } from './errors'
import type { Logger } from './logger'
import type { KernelConfig } from './maps'
import type { Registry } from './registry'

/**
 * A unit of the system (event log, settings, CLI, web, ...). It registers its commands and
 * listeners in `start` through `ctx.bus`; the kernel releases them after `stop`.
 */
export interface Service {
  readonly name: string
  /**
   * The namespace of its commands and events (`servers` for `servers:added`), which it alone may
   * emit in; default its name.
   */
  readonly namespace?: string
  /**
   * Names of the services it needs: each starts first, and a missing one stops the boot with
   * SM_ERR_KERNEL_SERVICE_MISSING.
   */
  readonly dependsOn?: readonly string[]
  /**
   * Names of services it must start after when they run in this process, but can do without
   * (plugins after web: their routes are served only where a web server runs). Start order comes
   * from these two lists, never from the order services were registered in.
   */
  readonly after?: readonly string[]
  /**
   * It delivers events that other hosts emitted (a bridge between buses): its scope may relay
   * any event to this bus's listeners, whatever its owner, without recording it again.
   */
  readonly relays?: boolean
  /**
   * What it declares, each made by a `define…` function (`defineCommands`, `defineEvents`,
   * `defineActions`, `defineErrors`, `defineSettings`): its kernel records them when the service
   * is added, so a kernel knows only its own services' commands, events, hooks, codes and settings.
   */
  readonly declares?: readonly object[]
  start(ctx: ServiceContext): void | Promise<void>
  /**
   * How long its start may take before the boot fails (default the kernel's, 30 s): for a
   * service whose start is long by nature and bounded by its own limits (plugins: each import,
   * constructor and onLoad has its own timeout).
   */
  readonly startTimeoutMs?: number
  /**
   * Called once every service has started (in start order): the moment to begin serving the
   * outside world (the web server answers 503 until then), since every command has its handler.
   */
  ready?(ctx: ServiceContext): void | Promise<void>
  stop?(ctx: ServiceContext): void | Promise<void>
}

/**
 * What a service is without its implementation: its name, where it starts, what a process that
 * does not run it must still know (`known`: its codes and settings, so a setting keeps its
 * default and its rule and a code its message there), and everything it declares (`declares`:
 * its contract too, loaded at the call).
 */
export interface ServiceDeclaration extends Pick<Service, 'name' | 'namespace' | 'dependsOn' | 'after' | 'relays'> {
  readonly known: readonly object[]
  declares(): readonly object[]
}

/** A service's fields from its declaration; its `start` and `stop` are its implementation's. */
export function declaredService(
  declaration: ServiceDeclaration,
): Pick<Service, 'name' | 'namespace' | 'dependsOn' | 'after' | 'relays' | 'declares'> {
  const { known: _known, declares, ...fields } = declaration
  return { ...fields, declares: declares() }
}

export interface ServiceContext {
  /** The bus, scoped to this service: registrations are attributed to it and released on stop. */
  readonly bus: BusScope
  readonly registry: Registry
  /** A child logger named after the service. */
  readonly logger: Logger
  readonly config: Readonly<KernelConfig>
}

/** One line of the boot (or shutdown) report. */
export interface ServiceReport {
  readonly service: string
  readonly phase: 'start' | 'stop'
  readonly ms: number
  readonly ok: boolean
  readonly error?: SmError
}
