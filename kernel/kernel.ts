import { Bus } from './bus'
import { BusScope } from './bus-scope'
import { Catalogue } from './catalogue'
import { isDiskFull, reasonOf, SmError, toSmError } from './errors'
import { kernelErrors } from './kernel-errors'
import { kernelEvents } from './kernel-events'
import { type Logger, silentLogger } from './logger'
import type { KernelConfig, PayloadOf } from './maps'
import { Registry } from './registry'
import type { Service, ServiceContext, ServiceReport } from './service'
import { startOrder } from './start-order'
import { timeBox } from './time-box'
import { createToken } from './token'

export const BusToken = createToken<Bus>('kernel:bus')
export const LoggerToken = createToken<Logger>('kernel:logger')
export const ConfigToken = createToken<Readonly<KernelConfig>>('kernel:config')

export interface KernelOptions {
  readonly config?: Partial<KernelConfig>
  readonly logger?: Logger
  /** Default timeout for async event listeners (ms). */
  readonly listenerTimeoutMs?: number
  /** Timeout for each service's start and stop (ms). */
  readonly serviceTimeoutMs?: number
}

export type KernelState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped'

export interface Kernel {
  readonly bus: Bus
  readonly registry: Registry
  readonly logger: Logger
  readonly config: Readonly<KernelConfig>
  readonly state: KernelState
  /** What this kernel and its services declared (commands, events, actions, errors, settings): this kernel's alone. */
  readonly catalogue: Catalogue
  /**
   * Registers services, and records what each declares (`Service.declares`) in this kernel's
   * catalogue at once; they start in dependency order on `start()`.
   */
  use(...services: Service[]): Kernel
  /**
   * Records declarations of a service that runs elsewhere, for a composition root that knows it:
   * a CLI's in-process manager sets the web service's settings, which the manager process runs.
   */
  declare(declarations: readonly object[], by: string): Kernel
  /**
   * Starts every service, tells each it is ready, then emits `kernel:ready`; on a failure, stops
   * those already started and rejects.
   */
  start(): Promise<ServiceReport[]>
  /** Emits `kernel:stopping`, then stops the started services in reverse order. Never rejects; failures are in the report. */
  stop(): Promise<ServiceReport[]>
}

interface Running {
  readonly service: Service
  readonly ctx: ServiceContext & { readonly bus: BusScope }
}

/** Creates a kernel: a bus, a registry and the lifecycle of the services given to it. */
export function createKernel(options: KernelOptions = {}): Kernel {
  const catalogue = new Catalogue()
  catalogue.add([kernelEvents, kernelErrors], 'the kernel')
  const bus = new Bus({ listenerTimeoutMs: options.listenerTimeoutMs, catalogue })
  const registry = new Registry()
  const logger = options.logger ?? silentLogger
  const config = Object.freeze({ ...options.config }) as Readonly<KernelConfig>
  const serviceTimeoutMs = options.serviceTimeoutMs ?? 30_000
  const services: Service[] = []
  const running: Running[] = []
  let state: KernelState = 'idle'

  registry.provide(BusToken, bus)
  registry.provide(LoggerToken, logger)
  registry.provide(ConfigToken, config)

  const timed = async (service: Service, phase: 'start' | 'stop', run: () => unknown): Promise<ServiceReport> => {
    const began = performance.now()
    const ms = (phase === 'start' && service.startTimeoutMs) || serviceTimeoutMs
    try {
      await timeBox(Promise.resolve().then(run), ms, () => new Error(`timed out after ${ms} ms`))
      return { service: service.name, phase, ms: performance.now() - began, ok: true }
    } catch (cause) {
      const error = cause instanceof SmError ? cause : failure(service.name, phase, cause)
      return { service: service.name, phase, ms: performance.now() - began, ok: false, error }
    }
  }

  const stopRunning = async (): Promise<ServiceReport[]> => {
    const reports: ServiceReport[] = []
    for (let entry = running.pop(); entry; entry = running.pop()) {
      const { service, ctx } = entry
      const report = await timed(service, 'stop', () => service.stop?.(ctx))
      ctx.bus.dispose()
      if (!report.ok) logger.error(`service ${service.name} failed to stop`, { error: report.error?.message })
      reports.push(report)
    }
    return reports
  }

  // A lifecycle event: a listener that fails is logged, and the lifecycle goes on.
  const announce = async <K extends 'kernel:ready' | 'kernel:stopping'>(name: K, payload: PayloadOf<K>) => {
    const report = await bus.emit(name, payload, { actor: 'core' })
    for (const { owner, error } of report.failures)
      logger.error(`${owner} failed on ${name}`, { code: error.code, error: error.message })
  }

  const kernel: Kernel = {
    bus,
    registry,
    logger,
    config,
    catalogue,
    get state() {
      return state
    },
    use(...added) {
      for (const service of added) {
        if (services.some((s) => s.name === service.name)) {
          throw new SmError('SM_ERR_KERNEL_DUPLICATE_SERVICE', { service: service.name })
        }
        catalogue.add(service.declares ?? [], `service ${service.name}`)
        services.push(service)
      }
      return kernel
    },
    declare(declarations, by) {
      catalogue.add(declarations, by)
      return kernel
    },
    async start() {
      if (state !== 'idle') throw new SmError('SM_ERR_KERNEL_NOT_RUNNING', { state })
      state = 'starting'
      const reports: ServiceReport[] = []
      try {
        for (const service of startOrder(services)) {
          const scope = new BusScope(bus, service.name, service.namespace ?? service.name, { relays: service.relays })
          const ctx = { bus: scope, registry, logger: logger.child(service.name), config }
          const report = await timed(service, 'start', () => service.start(ctx))
          reports.push(report)
          if (!report.ok) {
            ctx.bus.dispose()
            throw report.error
          }
          running.push({ service, ctx })
          logger.debug(`service ${service.name} started`, { ms: Math.round(report.ms) })
        }
        // Every service is up: those that serve the outside world may now answer.
        for (const { service, ctx } of running) {
          if (!service.ready) continue
          const report = await timed(service, 'start', () => service.ready?.(ctx))
          if (!report.ok) throw report.error
        }
      } catch (error) {
        await stopRunning()
        state = 'stopped'
        throw error
      }
      state = 'running'
      const total = reports.reduce((sum, r) => sum + r.ms, 0)
      logger.info(`started ${reports.length} services in ${total.toFixed(0)} ms`, {
        services: Object.fromEntries(reports.map((r) => [r.service, Math.round(r.ms)])),
      })
      await announce('kernel:ready', { services: reports.map((r) => r.service) })
      return reports
    },
    async stop() {
      if (state !== 'running') return []
      await announce('kernel:stopping', {})
      state = 'stopping'
      const reports = await stopRunning()
      registry.clear()
      state = 'stopped'
      return reports
    },
  }
  return kernel
}

/** A service that could not start or stop: a full disk is the user's to fix (SM_ERR_DISK_FULL), not a bug. */
function failure(service: string, phase: string, cause: unknown): SmError {
  if (isDiskFull(cause)) return toSmError(cause)
  return new SmError('SM_ERR_KERNEL_SERVICE_FAILED', { service, phase, reason: reasonOf(cause) }, { cause })
}
